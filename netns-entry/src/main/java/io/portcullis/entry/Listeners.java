package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The namespace's sockets, bound for the hand-over: the proxy, forwards and door on 127.0.0.1, and
 * on ::1 when the namespace has it; a named entry's socket on its synthetic address; the DNS socket
 * (UDP) on 127.0.0.1. Binding is all or nothing, so a half-bound entry hands nothing over.
 */
final class Listeners implements AutoCloseable {

    static final InetAddress IPV4_LOOPBACK = Handoff.IPV4_LOOPBACK;
    static final InetAddress IPV6_LOOPBACK = Handoff.IPV6_LOOPBACK;

    /** The kernel caps it at net.core.somaxconn; the relay drains the queue. */
    private static final int BACKLOG = 4096;

    /** Some socket could not be bound; the message names each one and why. */
    static final class BindFailure extends Exception {
        private static final long serialVersionUID = 1L;

        BindFailure(List<String> problems) {
            super(String.join("; ", problems));
        }
    }

    private final List<InetAddress> addresses;
    private final List<Handoff.Socket> sockets;
    private final int[] fds;

    private Listeners(List<InetAddress> addresses, List<Handoff.Socket> sockets, int[] fds) {
        this.addresses = List.copyOf(addresses);
        this.sockets = List.copyOf(sockets);
        this.fds = fds;
    }

    static Listeners bind(List<Endpoint> endpoints) throws BindFailure {
        requireLoopbackUp();
        List<InetAddress> addresses =
                hasIpv6Loopback() ? List.of(IPV4_LOOPBACK, IPV6_LOOPBACK) : List.of(IPV4_LOOPBACK);
        List<Handoff.Socket> sockets = new ArrayList<>();
        List<Integer> fds = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Endpoint endpoint : endpoints) {
            for (InetAddress address : endpoint.address().map(List::of).orElse(addresses)) {
                InetSocketAddress bound = new InetSocketAddress(address, endpoint.port());
                try {
                    fds.add(
                            endpoint.kind() == Handoff.Kind.DNS
                                    ? Posix.bindUdp(bound)
                                    : Posix.listenTcp(bound, BACKLOG));
                    sockets.add(new Handoff.Socket(endpoint.kind(), bound));
                } catch (IOException | RuntimeException e) {
                    problems.add("cannot listen on " + Handoff.text(bound) + " (" + endpoint + "): " + e.getMessage());
                }
            }
        }
        Listeners listeners = new Listeners(
                addresses, sockets, fds.stream().mapToInt(Integer::intValue).toArray());
        if (!problems.isEmpty()) {
            listeners.close();
            throw new BindFailure(problems);
        }
        return listeners;
    }

    List<InetAddress> addresses() {
        return addresses;
    }

    List<Handoff.Socket> sockets() {
        return sockets;
    }

    int[] fds() {
        return fds.clone();
    }

    /** Closes the entry's copies; once the relay holds the sockets, they stay open there. */
    @Override
    public void close() {
        Posix.closeQuietly(fds);
    }

    /**
     * A fresh namespace starts with loopback down, and the kernel still lets 127.0.0.1 be bound there;
     * every client would then fail with "network unreachable" while the entry claimed to be ready.
     */
    private static void requireLoopbackUp() throws BindFailure {
        boolean up;
        try {
            up = Posix.interfaceUp("lo");
        } catch (Posix.Failure e) {
            up = false;
        }
        if (!up) {
            throw new BindFailure(List.of("loopback is down in this namespace (expected: up, e.g. ip link set lo up)"));
        }
    }

    /** A namespace without IPv6 (or with ::1 removed) still gets its IPv4 sockets. */
    private static boolean hasIpv6Loopback() {
        try {
            Posix.close(Posix.bindTcp(new InetSocketAddress(IPV6_LOOPBACK, 0)));
            return true;
        } catch (Posix.Failure e) {
            return false;
        }
    }
}
