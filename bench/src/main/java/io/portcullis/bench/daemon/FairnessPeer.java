package io.portcullis.bench.daemon;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Sender;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The three roles of {@link Fairness}, each in a {@link TunnelPeer} child so that the relay's
 * process holds only the relay: an echo origin, a spawn that floods its forward with new tunnels,
 * and a spawn that opens one tunnel at a time and times each. Loopback only.
 */
final class FairnessPeer {
    private FairnessPeer() {}

    /** An echo origin on {@link TunnelPeer#ORIGIN_HOST}: prints {@code port P}, then serves until input ends. */
    static void echo() throws IOException {
        ServerSocket server = new ServerSocket(0, 4096, TunnelPeer.ORIGIN_HOST);
        Thread.ofPlatform().daemon().name("accept").start(() -> {
            while (true) {
                Socket socket;
                try {
                    socket = server.accept();
                } catch (IOException e) {
                    return;
                }
                Thread.ofVirtual().start(() -> {
                    try (socket) {
                        socket.getInputStream().transferTo(socket.getOutputStream());
                    } catch (IOException e) {
                        // The tunnel is over.
                    }
                });
            }
        });
        TunnelPeer.reply("port " + server.getLocalPort());
        BufferedReader in = TunnelPeer.input();
        while (in.readLine() != null) {
            TunnelPeer.reply("echo");
        }
    }

    /**
     * Hands the spawn's proxy and forward sockets over, answers {@code ready}; then {@code start}
     * sets {@code threads} threads opening new tunnels on the forward as fast as they can (each a
     * connect, one byte each way, a close) and {@code stop} answers {@code done OK REFUSED}.
     */
    static void flood(Path socket, Handoff.Key key, int proxyPort, int forward, int threads)
            throws IOException, InterruptedException {
        InetSocketAddress address = handOver(socket, key, proxyPort, forward);
        TunnelPeer.reply("ready");
        BufferedReader in = TunnelPeer.input();
        if (!"start".equals(in.readLine())) {
            return;
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ok = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            workers.add(Thread.ofPlatform().daemon().name("flood-" + i).start(() -> {
                while (running.get()) {
                    if (oneTunnel(address)) {
                        ok.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                }
            }));
        }
        TunnelPeer.reply("flooding");
        in.readLine();
        running.set(false);
        for (Thread worker : workers) {
            worker.join(5_000);
        }
        TunnelPeer.reply("done " + ok.get() + " " + refused.get());
    }

    /**
     * Hands the spawn's sockets over, answers {@code ready}; then each {@code probe N GAP} opens N
     * new tunnels one after another, {@code GAP} milliseconds apart (so a well-behaved spawn stays
     * within its new-connection rate), and answers {@code latencies P50 P99 MAX FAILED} in
     * microseconds.
     */
    static void probe(Path socket, Handoff.Key key, int proxyPort, int forward)
            throws IOException, InterruptedException {
        InetSocketAddress address = handOver(socket, key, proxyPort, forward);
        TunnelPeer.reply("ready");
        BufferedReader in = TunnelPeer.input();
        for (String line; (line = in.readLine()) != null; ) {
            String[] words = line.split(" ");
            int n = Integer.parseInt(words[1]);
            long gap = Long.parseLong(words[2]);
            long[] micros = new long[n];
            int failed = 0;
            for (int i = 0; i < n; i++) {
                Thread.sleep(gap);
                long start = System.nanoTime();
                if (!oneTunnel(address)) {
                    failed++;
                }
                micros[i] = (System.nanoTime() - start) / 1000;
            }
            Arrays.sort(micros);
            TunnelPeer.reply("latencies " + micros[n / 2] + " " + micros[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)]
                    + " " + micros[n - 1] + " " + failed);
        }
    }

    private static InetSocketAddress handOver(Path socket, Handoff.Key key, int proxyPort, int forward)
            throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<Handoff.Socket> sockets = List.of(
                new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(loopback, proxyPort)),
                new Handoff.Socket(Handoff.Kind.FORWARD, new InetSocketAddress(loopback, forward)));
        String answer = Sender.bindAndHandOver(socket, key, sockets, 10_000);
        if (!answer.equals(Handoff.ACCEPTED)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
        return new InetSocketAddress(loopback, forward);
    }

    /** One new tunnel: connect, a byte up, its echo down, close; false when the relay closed it first (refused). */
    private static boolean oneTunnel(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            socket.connect(address, 10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write('x');
            out.flush();
            return in.read() == 'x';
        } catch (IOException e) {
            return false;
        }
    }
}
