package io.portcullis.bench.observe;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.decisionlog.JsonLineSink;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JSON text of one decision line, as the decision log's thread makes it once per connection:
 * a tunnel to a service on this host, with the owner check's evidence (the line the bench-peers
 * origin gets), and a refused connection without it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DecisionLineBenchmark {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final Decision owned = new Decision(
            Instant.parse("2026-12-02T07:44:46.635724853Z"),
            "bench",
            247627,
            "proxy",
            true,
            Optional.of("127.0.0.1:37701"),
            List.of(LOOPBACK),
            Optional.of(new InetSocketAddress(LOOPBACK, 37701)),
            Decision.Result.ALLOW,
            Optional.empty(),
            "listed entry 127.0.0.1:37701 (tcp)",
            Optional.of(new OwnerEvidence(
                    List.of(new OwnerEvidence.Listener("inet", "127.0.0.1", 37701, 999, 28153641, false, "")),
                    List.of(new OwnerEvidence.Process(
                            15846,
                            999,
                            List.of(
                                    "/opt/bench/origin",
                                    "--host",
                                    "127.0.0.1",
                                    "--port",
                                    "0",
                                    "--port-file",
                                    "origin.port"),
                            "/opt/bench",
                            "/opt/bench/origin",
                            28153641)),
                    null)),
            90,
            85,
            7,
            new Decision.Timings(OptionalLong.empty(), OptionalLong.of(412), OptionalLong.of(96)),
            1,
            1,
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.of("CONNECT"));

    private final Decision refused = new Decision(
            Instant.parse("2026-12-02T07:44:46.635724853Z"),
            "bench",
            247628,
            "proxy",
            false,
            Optional.of("169.254.169.254:80"),
            List.of(),
            Optional.empty(),
            Decision.Result.DENY,
            DenyCode.of("not-global-unicast"),
            "169.254.169.254:80: 169.254.169.254 is link-local (169.254.0.0/16)",
            Optional.empty(),
            0,
            0,
            0,
            Decision.Timings.NONE,
            1,
            1,
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.of("GET"));

    @Benchmark
    public String tunnelWithOwnerEvidence() {
        return JsonLineSink.json(owned);
    }

    @Benchmark
    public String refusal() {
        return JsonLineSink.json(refused);
    }
}
