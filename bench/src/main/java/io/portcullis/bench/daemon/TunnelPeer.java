package io.portcullis.bench.daemon;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Sender;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The far ends of {@link SpawnFootprint}'s idle tunnels, in a process of their own so that the
 * relay's process holds only the relay's sockets. It answers one command a line on standard input
 * with one line on standard output, and exits when its input ends (the bench is gone) or after
 * {@link #LIFETIME}, whichever comes first.
 *
 * <ul>
 *   <li>{@code TunnelPeer origin}: listens on 127.0.0.1 (printing {@code port P}), accepts every
 *       connection and holds it silent; {@code count} answers {@code accepted K}.
 *   <li>{@code TunnelPeer clients SOCKET PORT}: {@code open K} connects to the spawn socket until
 *       K connections are open, each after handing the spawn's sockets over, each a silent connection to the forward PORT,
 *       and answers {@code opened K}, or {@code failed K: REASON} at the first one that fails.
 * </ul>
 */
public final class TunnelPeer {
    static final long LIFETIME = TimeUnit.MINUTES.toMillis(15);

    /** The origin is on 127.0.0.2: the forward's own socket takes the same port on 127.0.0.1. */
    static final InetAddress ORIGIN_HOST = originHost();

    private TunnelPeer() {}

    private static InetAddress originHost() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 2});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().name("lifetime").start(TunnelPeer::haltLater);
        // Only the peers that play an entry are given the spawn's key, as an entry is.
        Supplier<Handoff.Key> key = () -> Optional.ofNullable(System.getenv(Handoff.Key.ENVIRONMENT))
                .map(Handoff.Key::parse)
                .orElseThrow(() -> new IllegalStateException(Handoff.Key.ENVIRONMENT + ": not set"));
        if (args.length == 1 && args[0].equals("origin")) {
            origin();
        } else if (args.length == 3 && args[0].equals("clients")) {
            clients(Path.of(args[1]), key.get(), Integer.parseInt(args[2]));
        } else if (args.length == 1 && args[0].equals("echo")) {
            FairnessPeer.echo();
        } else if (args.length == 5 && args[0].equals("flood")) {
            FairnessPeer.flood(
                    Path.of(args[1]),
                    key.get(),
                    Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]));
        } else if (args.length == 4 && args[0].equals("probe")) {
            FairnessPeer.probe(Path.of(args[1]), key.get(), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else {
            System.err.println("usage: TunnelPeer origin | TunnelPeer clients SOCKET PORT | TunnelPeer echo"
                    + " | TunnelPeer flood SOCKET PROXY FORWARD THREADS | TunnelPeer probe SOCKET PROXY FORWARD");
            System.exit(2);
        }
        // Input ended: the bench is gone or done. Halt rather than close thousands of sockets.
        Runtime.getRuntime().halt(0);
    }

    private static void haltLater() {
        try {
            Thread.sleep(LIFETIME);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println("TunnelPeer: lifetime of " + LIFETIME + " ms over, exiting");
        Runtime.getRuntime().halt(3);
    }

    private static void origin() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(ORIGIN_HOST, 0), 4096);
        List<SocketChannel> held = new ArrayList<>();
        AtomicInteger accepted = new AtomicInteger();
        Thread.ofPlatform().daemon().name("accept").start(() -> {
            try {
                while (true) {
                    held.add(server.accept());
                    accepted.incrementAndGet();
                }
            } catch (IOException e) {
                System.err.println("TunnelPeer origin: accept failed after " + accepted.get() + ": " + e);
            }
        });
        reply("port " + ((InetSocketAddress) server.getLocalAddress()).getPort());
        BufferedReader in = input();
        for (String line; (line = in.readLine()) != null; ) {
            reply(line.equals("count") ? "accepted " + accepted.get() : "unknown " + line);
        }
    }

    /**
     * Hands over the spawn's proxy socket (39080) and its forward on {@code port}, as the entry
     * would, then connects clients to the forward.
     */
    private static void clients(Path socket, Handoff.Key key, int port) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<Handoff.Socket> sockets = List.of(
                new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(loopback, 39080)),
                new Handoff.Socket(Handoff.Kind.FORWARD, new InetSocketAddress(loopback, port)));
        String answer = Sender.bindAndHandOver(socket, key, sockets, 10_000);
        if (!answer.equals(Handoff.ACCEPTED)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
        InetSocketAddress address = new InetSocketAddress(loopback, port);
        List<SocketChannel> open = new ArrayList<>();
        BufferedReader in = input();
        for (String line; (line = in.readLine()) != null; ) {
            if (!line.startsWith("open ")) {
                reply("unknown " + line);
                continue;
            }
            int target = Integer.parseInt(line.substring("open ".length()));
            try {
                while (open.size() < target) {
                    open.add(SocketChannel.open(address));
                }
                reply("opened " + open.size());
            } catch (IOException e) {
                reply("failed " + open.size() + ": " + e);
            }
        }
    }

    static BufferedReader input() {
        return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }

    static void reply(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
