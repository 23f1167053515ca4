package io.portcullis.bench.daemon;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Bench driver for the daemon's unit costs, loopback and unix sockets only, bounded in count and
 * time: the time of {@code relay.open} (a directory, a socket, a listening channel), the heap per
 * open spawn, and the memory per idle forward tunnel through one spawn (its budget raised for the
 * run) with the tunnels opened in steps. The judge allows the forward without DNS or an owner
 * check, so the figures are the engine's, not the policy's.
 *
 * <p>The clients and the origin of the tunnels are two {@link TunnelPeer} child processes, so this
 * process holds the relay's two descriptors per tunnel (the unix inbound, the TCP outbound) and
 * nothing else, and its heap and resident memory are the relay's. The children are killed on the
 * way out, and exit by themselves if this process dies first.
 *
 * <p>Usage: {@code SpawnFootprint [SPAWNS] [TUNNELS,TUNNELS...]} (default 2000 and 2500,5000,9800).
 * The largest step must leave {@value #FD_MARGIN} descriptors spare below {@code ulimit -n}.
 */
public final class SpawnFootprint {
    static final int FD_MARGIN = 200;
    private static final Duration STEP_TIME = Duration.ofMinutes(2);
    private static final double KIB = 1024.0;
    private static final double MIB = 1024.0 * 1024.0;

    private SpawnFootprint() {}

    public static void main(String[] args) throws Exception {
        int spawns = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int[] steps = Arrays.stream((args.length > 1 ? args[1] : "2500,5000,9800").split(","))
                .mapToInt(Integer::parseInt)
                .sorted()
                .toArray();
        if (steps.length == 0 || steps[0] <= 0) {
            throw new IllegalArgumentException("tunnels: " + Arrays.toString(steps) + " (expected: positive counts)");
        }
        int most = steps[steps.length - 1];
        Path parent = Files.createTempDirectory("portcullis-bench-");
        HostConfig host = HostConfigJson.parse(
                "bench-host.json",
                "{\"limits\": {\"spawnConnections\": " + (most + 10) + ", \"relayConnections\": " + (most + 10) + "},"
                        // The clients are this bench's own JVM, of its uid and in its pid namespace (decision D69).
                        + " \"handoff\": {\"allowSharedPidNamespace\": true}}");
        try (Relay relay = Relay.builder(host)
                .directory(parent)
                .judge(SpawnFootprint::forwardToLoopback)
                .decisions(SpawnFootprint::drop)
                .start()) {
            openSpawns(relay, spawns);
            idleTunnels(relay, steps);
        } finally {
            Files.deleteIfExists(parent);
        }
    }

    private static CompletableFuture<Verdict> forwardToLoopback(SpawnPolicy spawn, Request request) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return CompletableFuture.completedFuture(new Verdict.Allow(
                List.of(new InetSocketAddress(TunnelPeer.ORIGIN_HOST, request.forwardPort())),
                List.of(loopback),
                "bench"));
    }

    private static void drop(Decision decision) {
        // The decision log is not what is measured.
    }

    private static void openSpawns(Relay relay, int count) throws Exception {
        for (int i = 0; i < 200; i++) {
            relay.open(SpawnPolicyJson.parse("warm", "{\"id\": \"warm-" + i + "\"}"))
                    .close();
        }
        long heapBefore = settledHeap();
        long rssBefore = rssBytes();
        long[] nanos = new long[count];
        List<SpawnHandle> open = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            SpawnPolicy policy = SpawnPolicyJson.parse("spawn", "{\"id\": \"spawn-" + i + "\"}");
            long start = System.nanoTime();
            open.add(relay.open(policy));
            nanos[i] = System.nanoTime() - start;
        }
        long heap = settledHeap() - heapBefore;
        long rss = rssBytes() - rssBefore;
        Arrays.sort(nanos);
        System.out.printf(
                "open a spawn: %d spawns, median %.3f ms, p90 %.3f ms, p99 %.3f ms%n",
                count, nanos[count / 2] / 1e6, nanos[count * 9 / 10] / 1e6, nanos[count * 99 / 100] / 1e6);
        System.out.printf("per open spawn: heap %.1f KiB, RSS %.1f KiB%n", heap / 1024.0 / count, rss / 1024.0 / count);
        long closing = System.nanoTime();
        open.forEach(SpawnHandle::close);
        System.out.printf("close a spawn: mean %.3f ms%n", (System.nanoTime() - closing) / 1e6 / count);
    }

    private static void idleTunnels(Relay relay, int[] steps) throws Exception {
        try (PeerProcess origin = PeerProcess.start("origin")) {
            int port = Integer.parseInt(field(origin.answer(STEP_TIME), "port"));
            try (SpawnHandle spawn = relay.open(SpawnPolicyJson.parse(
                            "spawn",
                            "{\"id\": \"idle\", \"hosts\": [{\"target\": \"127.0.0.1:" + port
                                    + "\", \"scheme\": \"tcp\"}]}"));
                    PeerProcess clients =
                            PeerProcess.entry(spawn, "clients", spawn.socket().toString(), Integer.toString(port))) {
                Sample base = Sample.take(0);
                checkFits(base, steps[steps.length - 1]);
                System.out.printf(
                        "idle tunnels: relay process pid %d (limit %d open files), clients pid %d, origin pid %d;"
                                + " before: %d fds, heap %.1f MiB, RSS %.1f MiB%n",
                        ProcessHandle.current().pid(),
                        base.limit,
                        clients.pid(),
                        origin.pid(),
                        base.fds,
                        base.heap / MIB,
                        base.rss / MIB);
                Sample last = base;
                for (int n : steps) {
                    String opened = clients.ask("open " + n, STEP_TIME);
                    if (!opened.equals("opened " + n)) {
                        throw new IOException("clients: " + opened + " (expected: opened " + n + ")");
                    }
                    awaitTunnels(spawn, origin, n);
                    Sample now = Sample.take(n);
                    now.print(base, last, spawn.openConnections());
                    last = now;
                }
            }
        }
    }

    /** Fails before the first tunnel when the largest step would come within {@link #FD_MARGIN} of the limit. */
    private static void checkFits(Sample base, int most) {
        long fit = (base.limit - base.fds - FD_MARGIN) / 2;
        if (most > fit) {
            throw new IllegalArgumentException("tunnels: " + most + " (expected: at most " + fit + " here: " + base.fds
                    + " files open before, two per tunnel, " + FD_MARGIN + " spare, limit " + base.limit + ")");
        }
    }

    private static void awaitTunnels(SpawnHandle spawn, PeerProcess origin, int n) throws Exception {
        long deadline = System.nanoTime() + STEP_TIME.toNanos();
        int accepted = 0;
        while (System.nanoTime() < deadline) {
            accepted = Integer.parseInt(field(origin.ask("count", STEP_TIME), "accepted"));
            if (accepted >= n && spawn.openConnections() >= n) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IOException("tunnels: " + n + " asked, the relay holds " + spawn.openConnections()
                + " and the origin accepted " + accepted + " within " + STEP_TIME);
    }

    private static String field(String line, String name) throws IOException {
        if (!line.startsWith(name + " ")) {
            throw new IOException("answer: " + line + " (expected: " + name + " N)");
        }
        return line.substring(name.length() + 1);
    }

    /** The relay process's own heap after a settled GC, resident memory and open files, with n tunnels open. */
    private record Sample(int n, long heap, long rss, long fds, long limit) {
        static Sample take(int n) throws IOException, InterruptedException {
            long heap = settledHeap();
            return new Sample(n, heap, rssBytes(), openFiles(), openFilesLimit());
        }

        void print(Sample base, Sample last, int relaySees) {
            int added = n - last.n;
            System.out.printf(
                    "idle tunnels: %d open (relay sees %d), relay process only: per tunnel heap %.2f KiB, RSS %.2f KiB,"
                            + " fds %.2f; the last %d: heap %.2f KiB, RSS %.2f KiB each; totals heap %.1f MiB, RSS %.1f MiB, %d fds%n",
                    n,
                    relaySees,
                    (heap - base.heap) / KIB / n,
                    (rss - base.rss) / KIB / n,
                    (fds - base.fds) / (double) n,
                    added,
                    (heap - last.heap) / KIB / added,
                    (rss - last.rss) / KIB / added,
                    heap / MIB,
                    rss / MIB,
                    fds);
        }
    }

    private static long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count() - 1; // the listing's own descriptor
        }
    }

    private static long openFilesLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(
                        line.substring("Max open files".length()).trim().split("\\s+")[0]);
            }
        }
        throw new IOException("no Max open files in /proc/self/limits");
    }

    private static long settledHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
