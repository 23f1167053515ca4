package io.portcullis.entry;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The bound listening sockets: every endpoint on 127.0.0.1, and on ::1 when the namespace has it.
 * Binding is all or nothing, so a half-working entry never announces itself ready.
 */
final class Listeners implements AutoCloseable {

    static final InetAddress IPV4_LOOPBACK = literal(new byte[] {127, 0, 0, 1});
    static final InetAddress IPV6_LOOPBACK = literal(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});

    /** One listening socket. */
    record Listener(Endpoint endpoint, InetAddress address, ServerSocketChannel channel) {}

    /** Some listener could not be bound; the message names each one and why. */
    static final class BindFailure extends Exception {
        private static final long serialVersionUID = 1L;

        BindFailure(List<String> problems) {
            super(String.join("; ", problems));
        }
    }

    private final List<InetAddress> addresses;
    private final List<Listener> listeners;

    private Listeners(List<InetAddress> addresses, List<Listener> listeners) {
        this.addresses = List.copyOf(addresses);
        this.listeners = List.copyOf(listeners);
    }

    static Listeners bind(List<Endpoint> endpoints) throws BindFailure {
        requireLoopbackUp();
        List<InetAddress> addresses =
                hasIpv6Loopback() ? List.of(IPV4_LOOPBACK, IPV6_LOOPBACK) : List.of(IPV4_LOOPBACK);
        List<Listener> bound = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Endpoint endpoint : endpoints) {
            for (InetAddress address : addresses) {
                try {
                    bound.add(new Listener(endpoint, address, open(address, endpoint.port())));
                } catch (IOException | RuntimeException e) {
                    problems.add("cannot listen on " + hostPort(address, endpoint.port()) + " (" + endpoint + "): "
                            + e.getMessage());
                }
            }
        }
        Listeners listeners = new Listeners(addresses, bound);
        if (!problems.isEmpty()) {
            listeners.close();
            throw new BindFailure(problems);
        }
        return listeners;
    }

    List<InetAddress> addresses() {
        return addresses;
    }

    List<Listener> all() {
        return listeners;
    }

    @Override
    public void close() {
        for (Listener listener : listeners) {
            try {
                listener.channel().close();
            } catch (IOException e) {
                // closing a listening socket releases the port even when close reports an error
            }
        }
    }

    static String hostPort(InetAddress address, int port) {
        return address instanceof Inet6Address ? "[::1]:" + port : address.getHostAddress() + ":" + port;
    }

    static String text(InetAddress address) {
        return address instanceof Inet4Address ? address.getHostAddress() : "::1";
    }

    private static ServerSocketChannel open(InetAddress address, int port) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open(
                address instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            channel.bind(new InetSocketAddress(address, port), 128);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * A fresh namespace starts with loopback down, and the kernel still lets 127.0.0.1 be bound there;
     * every client would then fail with "network unreachable" while the entry claimed to be ready.
     */
    private static void requireLoopbackUp() throws BindFailure {
        boolean up;
        try {
            NetworkInterface loopback = NetworkInterface.getByName("lo");
            up = loopback != null && loopback.isUp();
        } catch (SocketException e) {
            up = false;
        }
        if (!up) {
            throw new BindFailure(List.of("loopback is down in this namespace (expected: up, e.g. ip link set lo up)"));
        }
    }

    /** A namespace without IPv6 (or with ::1 removed) still gets its IPv4 listeners. */
    private static boolean hasIpv6Loopback() {
        try (ServerSocketChannel probe = ServerSocketChannel.open(StandardProtocolFamily.INET6)) {
            probe.bind(new InetSocketAddress(IPV6_LOOPBACK, 0));
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static InetAddress literal(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4- or 16-byte literal is always an address", e);
        }
    }
}
