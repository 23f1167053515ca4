package io.portcullis.bench.policy;

import io.portcullis.owner.OwnerCheck;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.judge.PolicyJudge;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The policy core on realistic shapes: parsing a target, classifying an address (SPEC R14), and a
 * whole decision with the DNS answer already at hand (a warm cache), as the relay makes one per
 * connection. Goal: a whole decision under 1 us.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PolicyBenchmark {
    private static final String SPAWN = """
            {"id": "studio", "network": "internet", "hosts": [
              {"target": "nas.lan:8443", "scheme": "https"},
              {"target": "printer.lan:80", "scheme": "http"},
              {"target": "127.0.0.1:5000", "scheme": "tcp"},
              {"target": "api.example.com:443", "scheme": "https"},
              {"target": "10.20.30.40:5432", "scheme": "tcp"}]}""";

    /** Pre-resolved answers: what a warm DNS cache hands back. */
    private static final Map<String, List<InetAddress>> ANSWERS = Map.of(
            "nas.lan", addresses("192.168.1.10"),
            "www.example.org", addresses("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"),
            "mixed.example.org", addresses("93.184.216.34", "10.0.0.5"));

    /** Target spellings: a name, IPv4, IPv6, an internationalised name. */
    @State(Scope.Benchmark)
    public static class Targets {
        @Param({"example.com:443", "192.0.2.1:8443", "[2001:db8::1]:443", "bücher.example:443"})
        public String target;
    }

    /** Requests: internet shape allowed, listed name, internet shape denied, listed literal, malformed. */
    @State(Scope.Benchmark)
    public static class Requests {
        @Param({"www.example.org:443", "nas.lan:8443", "mixed.example.org:443", "10.20.30.40:5432", "a@b:443"})
        public String request;
    }

    private InetAddress v4;
    private InetAddress v6;
    private SpawnPolicy spawn;
    private PolicyJudge judge;

    @Setup
    public void setUp() throws ConfigException {
        v4 = addresses("93.184.216.34").get(0);
        v6 = addresses("2606:2800:220:1:248:1893:25c8:1946").get(0);
        spawn = SpawnPolicyJson.parse("bench", SPAWN);
        Resolver warm = name -> CompletableFuture.completedFuture(
                ANSWERS.containsKey(name)
                        ? Resolution.resolved(ANSWERS.get(name))
                        : Resolution.failed(Resolution.Status.FAILED, name));
        OwnAddresses own = new OwnAddresses(Set.copyOf(addresses("203.0.113.7", "192.168.1.2")));
        judge = new PolicyJudge(new Rules(HostConfig.DEFAULTS), warm, () -> own, OwnerCheck.failClosed("bench"));
    }

    private static List<InetAddress> addresses(String... texts) {
        try {
            InetAddress[] out = new InetAddress[texts.length];
            for (int i = 0; i < texts.length; i++) {
                out[i] = InetAddress.getByName(texts[i]);
            }
            return List.of(out);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Benchmark
    public Target parse(Targets targets) {
        return Target.parse(targets.target);
    }

    @Benchmark
    public boolean classifyIpv4() {
        return Rules.isGlobalUnicast(v4);
    }

    @Benchmark
    public boolean classifyIpv6() {
        return Rules.isGlobalUnicast(v6);
    }

    @Benchmark
    public Verdict decide(Requests requests) {
        return judge.decide(spawn, Request.connect(requests.request)).join();
    }
}
