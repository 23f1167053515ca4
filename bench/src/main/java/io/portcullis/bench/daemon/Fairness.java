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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One spawn's new-tunnel latency while another floods the same relay (SPEC R16, R41): spawn B opens
 * tunnels one at a time on its forward, {@value #GAP_MILLIS} ms apart, and times each (connect, a
 * byte each way, close), first
 * alone, then while spawn A opens new tunnels on its own forward from {@code THREADS} threads as
 * fast as they can; once with the default new-connection rate and once with the rate raised out
 * of the way, so the table shows what the rate does and what the accept sharing alone does. The
 * judge allows each forward to its echo origin without DNS or an owner check; loopback only,
 * bounded in count and time.
 *
 * <p>Usage: {@code Fairness [TUNNELS] [THREADS]} (default 3000 and 8).
 */
public final class Fairness {
    private static final Duration STEP = Duration.ofMinutes(3);
    /** B's pause before each tunnel: about 150 tunnels a second, within the default rate of 200. */
    static final int GAP_MILLIS = 5;

    private Fairness() {}

    public static void main(String[] args) throws Exception {
        int tunnels = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        System.out.printf(
                "B opens %d tunnels one at a time, %d ms apart; A floods from %d threads%n%n",
                tunnels, GAP_MILLIS, threads);
        System.out.println(
                "| relay | B alone p50 | B alone p99 | B under A's flood p50 | B under A's flood p99 | p99 ratio | A's tunnels | A refused |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        run("default rate (200/s, burst 400)", "{}", tunnels, threads);
        run(
                "rate raised to 1 000 000/s",
                "{\"limits\": {\"spawnRate\": 1000000, \"spawnBurst\": 1000000}}",
                tunnels,
                threads);
    }

    private static void run(String name, String hostJson, int tunnels, int threads) throws Exception {
        Path parent = Files.createTempDirectory("portcullis-fairness-");
        // The peers are this bench's own JVMs, of its uid and in its pid namespace (decision D69).
        HostConfig host =
                HostConfigJson.parse("fairness-host.json", hostJson).withHandoff(new HostConfig.HandoffRules(true));
        try (PeerProcess originA = PeerProcess.start("echo");
                PeerProcess originB = PeerProcess.start("echo");
                Relay relay = Relay.builder(host)
                        .directory(parent)
                        .judge(Fairness::forwardToOrigin)
                        .decisions(Fairness::drop)
                        .start()) {
            int portA = port(originA);
            int portB = port(originB);
            SpawnHandle a = relay.open(policy("flood", 39180, portA));
            SpawnHandle b = relay.open(policy("probe", 39181, portB));
            try (PeerProcess flood = PeerProcess.entry(
                            a,
                            "flood",
                            a.socket().toString(),
                            "39180",
                            Integer.toString(portA),
                            Integer.toString(threads));
                    PeerProcess probe =
                            PeerProcess.entry(b, "probe", b.socket().toString(), "39181", Integer.toString(portB))) {
                expect(flood.answer(STEP), "ready");
                expect(probe.answer(STEP), "ready");
                probe.ask("probe 2000 " + GAP_MILLIS, STEP); // warm the relay (JIT) before either figure
                long[] alone = latencies(probe.ask("probe " + tunnels + " " + GAP_MILLIS, STEP));
                expect(flood.ask("start", STEP), "flooding");
                Thread.sleep(1000);
                long[] flooded = latencies(probe.ask("probe " + tunnels + " " + GAP_MILLIS, STEP));
                String[] done = flood.ask("stop", STEP).split(" ");
                System.out.printf(
                        "| %s | %d µs | %d µs | %d µs | %d µs | %.2f× | %s | %s |%n",
                        name,
                        alone[0],
                        alone[1],
                        flooded[0],
                        flooded[1],
                        (double) flooded[1] / alone[1],
                        done[1],
                        done[2]);
                if (alone[3] + flooded[3] > 0) {
                    System.out.printf(
                            "  (B's tunnels that failed: %d alone, %d under the flood)%n", alone[3], flooded[3]);
                }
            }
        } finally {
            Files.deleteIfExists(parent);
        }
    }

    private static SpawnPolicy policy(String id, int proxyPort, int forward) throws Exception {
        return SpawnPolicyJson.parse(
                id,
                "{\"id\": \"" + id + "\", \"proxyPort\": " + proxyPort + ", \"hosts\": [{\"target\": \"127.0.0.1:"
                        + forward + "\", \"scheme\": \"tcp\"}]}");
    }

    private static CompletableFuture<Verdict> forwardToOrigin(SpawnPolicy spawn, Request request) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return CompletableFuture.completedFuture(new Verdict.Allow(
                List.of(new InetSocketAddress(TunnelPeer.ORIGIN_HOST, request.forwardPort())),
                List.of(loopback),
                "fairness bench"));
    }

    private static void drop(Decision decision) {}

    private static int port(PeerProcess origin) throws Exception {
        String answer = origin.answer(STEP);
        if (!answer.startsWith("port ")) {
            throw new IOException("origin: " + answer + " (expected: port P)");
        }
        return Integer.parseInt(answer.substring("port ".length()));
    }

    private static void expect(String answer, String expected) throws IOException {
        if (!answer.equals(expected)) {
            throw new IOException("peer: " + answer + " (expected: " + expected + ")");
        }
    }

    /** p50, p99, max and failures from {@code latencies P50 P99 MAX FAILED}. */
    private static long[] latencies(String answer) throws IOException {
        if (!answer.startsWith("latencies ")) {
            throw new IOException("probe: " + answer + " (expected: latencies P50 P99 MAX FAILED)");
        }
        String[] parts = answer.split(" ");
        return new long[] {
            Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]), Long.parseLong(parts[4])
        };
    }
}
