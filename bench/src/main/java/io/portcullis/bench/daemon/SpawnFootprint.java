package io.portcullis.bench.daemon;

import io.portcullis.entry.wire.Preamble;
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
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bench driver for the daemon's unit costs, loopback and unix sockets only, bounded in count:
 * the time of {@code relay.open} (a directory, a socket, a listening channel), the heap per open
 * spawn, and the memory per idle forward tunnel with {@code tunnels} open at once through one
 * spawn (its budget raised for the run). The judge allows the forward without DNS or an owner
 * check, so the figures are the engine's, not the policy's.
 *
 * <p>Usage: {@code SpawnFootprint [SPAWNS] [TUNNELS]} (default 2000 and 10000); the client and the
 * origin run in this process too, so each tunnel takes four file descriptors ({@code ulimit -n}).
 */
public final class SpawnFootprint {
    private SpawnFootprint() {}

    public static void main(String[] args) throws Exception {
        int spawns = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int tunnels = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        Path parent = Files.createTempDirectory("portcullis-bench-");
        HostConfig host = HostConfigJson.parse("bench-host.json", "{\"limits\": {\"spawnConnections\": " + (tunnels + 10)
                + ", \"relayConnections\": " + (tunnels + 10) + "}}");
        try (Relay relay = Relay.builder(host).directory(parent).judge(SpawnFootprint::forwardToLoopback)
                .decisions(SpawnFootprint::drop).start()) {
            openSpawns(relay, spawns);
            idleTunnels(relay, tunnels);
        } finally {
            Files.deleteIfExists(parent);
        }
    }

    private static CompletableFuture<Verdict> forwardToLoopback(SpawnPolicy spawn, Request request) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return CompletableFuture.completedFuture(
                new Verdict.Allow(List.of(new InetSocketAddress(loopback, request.forwardPort())), List.of(loopback), "bench"));
    }

    private static void drop(Decision decision) {
        // The decision log is not what is measured.
    }

    private static void openSpawns(Relay relay, int count) throws Exception {
        for (int i = 0; i < 200; i++) {
            relay.open(SpawnPolicyJson.parse("warm", "{\"id\": \"warm-" + i + "\"}")).close();
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
        System.out.printf("open a spawn: %d spawns, median %.3f ms, p90 %.3f ms, p99 %.3f ms%n", count,
                nanos[count / 2] / 1e6, nanos[count * 9 / 10] / 1e6, nanos[count * 99 / 100] / 1e6);
        System.out.printf("per open spawn: heap %.1f KiB, RSS %.1f KiB%n", heap / 1024.0 / count, rss / 1024.0 / count);
        long closing = System.nanoTime();
        open.forEach(SpawnHandle::close);
        System.out.printf("close a spawn: mean %.3f ms%n", (System.nanoTime() - closing) / 1e6 / count);
    }

    private static void idleTunnels(Relay relay, int count) throws Exception {
        try (ServerSocketChannel origin = ServerSocketChannel.open()) {
            origin.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
            int port = ((InetSocketAddress) origin.getLocalAddress()).getPort();
            SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn",
                    "{\"id\": \"idle\", \"hosts\": [{\"target\": \"127.0.0.1:" + port + "\", \"scheme\": \"tcp\"}]}"));
            List<SocketChannel> clients = new ArrayList<>(count);
            List<SocketChannel> accepted = new ArrayList<>(count);
            long heapBefore = settledHeap();
            long rssBefore = rssBytes();
            byte[] preamble = new Preamble(Preamble.Kind.FORWARD, port).encode();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            origin.configureBlocking(false);
            for (int i = 0; i < count && System.nanoTime() < deadline; i++) {
                SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(spawn.socket()));
                client.write(ByteBuffer.wrap(preamble));
                clients.add(client);
                SocketChannel dialed;
                while ((dialed = origin.accept()) == null && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                if (dialed == null) {
                    break;
                }
                accepted.add(dialed);
            }
            while (spawn.openConnections() < clients.size() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long heap = settledHeap() - heapBefore;
            long rss = rssBytes() - rssBefore;
            int n = clients.size();
            System.out.printf("idle tunnels: %d open (relay sees %d); per tunnel, whole process (relay, client and origin "
                    + "sockets): heap %.1f KiB, RSS %.1f KiB%n", n, spawn.openConnections(), heap / 1024.0 / n, rss / 1024.0 / n);
            for (SocketChannel channel : clients) {
                channel.close();
            }
            for (SocketChannel channel : accepted) {
                channel.close();
            }
            spawn.close();
        }
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
