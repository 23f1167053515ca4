package io.portcullis.launch;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.Relay;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;

/**
 * {@code portcullis demo}, inside a network namespace of its own: builds a {@link DemoWorld}, runs
 * {@code curl} in a sandbox against allowed and refused targets through a relay of this process,
 * and prints what curl saw, what the relay decided, and why.
 */
public final class Demo {
    private static final String ID = "demo";
    private static final Duration CURL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DECISIONS_WAIT = Duration.ofSeconds(3);
    /** In the sandbox's own /tmp. */
    private static final String SANDBOX_CERTIFICATE = "/tmp/portcullis-demo-ca.pem";

    private final Sandbox sandbox;
    /** A /tmp of the sandbox's own: the demo's curl reads the world's certificate from a copy made there. */
    private final Sandbox.Tmp tmp;

    private final EntryCommand entry;
    private final int uid;
    private final int gatewayUid;
    private final Deque<AutoCloseable> open = new ConcurrentLinkedDeque<>();

    /**
     * @param uid this process's uid, which runs the sandbox
     * @param gatewayUid the gateway's user for the owner check: the invoking user's, as under {@code run}
     */
    public Demo(Sandbox sandbox, Sandbox.Tmp tmp, EntryCommand entry, int uid, int gatewayUid) {
        this.sandbox = sandbox;
        this.tmp = tmp;
        this.entry = entry;
        this.uid = uid;
        this.gatewayUid = gatewayUid;
    }

    /**
     * The gateway's user in the demo: the invoking user's uid, as under {@code run}; for root
     * itself, which {@code run} never takes as the gateway's, nobody's uid stands in.
     */
    public static int gatewayUid(int invokingUid) {
        return invokingUid == 0 ? NOBODY : invokingUid;
    }

    /** The uid of the demo's other user: nobody's, unless that is the gateway's. */
    static int otherUid(int gatewayUid) {
        return gatewayUid == NOBODY ? NOBODY - 1 : NOBODY;
    }

    private static final int NOBODY = 65534;

    /** Runs the demo and prints its table; true when every connection got the verdict its policy gives. */
    public boolean run(PrintWriter out) throws IOException, InterruptedException {
        out.println("Building the demo world: an \"internet\" host (93.184.77.10), a LAN host (192.168.77.10),"
                + " a DNS server on loopback, all in network namespaces with no route out...");
        out.flush();
        try {
            DemoWorld.Built world =
                    opened(DemoWorld.create(gatewayUid, otherUid(gatewayUid))).start();
            List<DemoRow> rows = rows(world);
            SpawnPolicy policy = policy(world);
            describe(out, policy);
            Map<String, Decision> decisions = new ConcurrentHashMap<>();
            Relay relay = opened(Relay.builder(host(world, gatewayUid))
                    .threads(1)
                    .descriptorsFor(1)
                    .decisions(d -> decisions.putIfAbsent(d.target().orElse(""), d))
                    .start());
            List<CurlSeen> seen = curl(relay, policy, world, rows);
            awaitDecisions(decisions, rows);
            relay.close();
            List<DemoTable.Line> lines = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                lines.add(new DemoTable.Line(
                        rows.get(i),
                        seen.get(i),
                        Optional.ofNullable(decisions.get(rows.get(i).target()))));
            }
            return report(out, lines);
        } finally {
            abort();
        }
    }

    /**
     * Closes whatever the demo has open (the sandbox, the relay, the world), newest first. Safe from
     * a shutdown hook while {@link #run} is under way: each part is closed once.
     */
    public void abort() {
        for (AutoCloseable part; (part = open.pollFirst()) != null; ) {
            try {
                part.close();
            } catch (Exception e) {
                // Best effort: what stays is a namespace with no route out, removed by the next world.
            }
        }
    }

    private <T extends AutoCloseable> T opened(T part) {
        open.addFirst(part);
        return part;
    }

    private static boolean report(PrintWriter out, List<DemoTable.Line> lines) {
        out.println();
        out.print(DemoTable.render(lines));
        out.println();
        out.println("What the codes mean (docs/policy.md lists them all):");
        out.print(DemoTable.codes(lines));
        long expected = lines.stream().filter(DemoTable.Line::asExpected).count();
        out.println();
        out.println(expected + " of " + lines.size() + " connections got the verdict the policy gives them."
                + " Nothing left this machine: every host above lives in a namespace of this demo.");
        out.flush();
        return expected == lines.size();
    }

    static List<DemoRow> rows(DemoWorld.Built world) {
        String lan = world.unlistedLanHost().getHostAddress();
        return List.of(
                new DemoRow(
                        "https://" + DemoWorld.NAS + ":8443/",
                        DemoWorld.NAS + ":8443",
                        true,
                        "listed: a LAN host is allowed when the owner names it exactly"),
                new DemoRow(
                        "https://" + DemoWorld.WEB + "/",
                        DemoWorld.WEB + ":443",
                        true,
                        "internet shape: HTTPS on 443, every address global"),
                new DemoRow(
                        "http://" + DemoWorld.WEB + "/",
                        DemoWorld.WEB + ":80",
                        false,
                        "plain HTTP reaches listed http entries only, never the internet"),
                new DemoRow(
                        "https://" + lan + "/",
                        lan + ":443",
                        false,
                        "not listed, and a private address is not the internet"),
                new DemoRow(
                        "https://169.254.169.254/",
                        "169.254.169.254:443",
                        false,
                        "cloud metadata: the deny list wins even over a listed entry"),
                new DemoRow(
                        "https://" + DemoWorld.MIXED + "/",
                        DemoWorld.MIXED + ":443",
                        false,
                        "one public and one private address: one bad address denies all"),
                new DemoRow(
                        "https://" + DemoWorld.WEB + ":8443/",
                        DemoWorld.WEB + ":8443",
                        false,
                        "the internet shape is port 443 only"),
                local(world.own().port(), true, "your own service, listed: you are the gateway's user"),
                local(world.other().port(), false, "another user's service, listed"),
                local(world.loopbackPort(), false, "root's service: only a port a container publishes passes"));
    }

    /** A forward to a listed service on this namespace's loopback: the owner check's rows. */
    private static DemoRow local(int port, boolean allowed, String about) {
        return new DemoRow("http://127.0.0.1:" + port + "/", "forward:" + port, allowed, about, true);
    }

    private SpawnPolicy policy(DemoWorld.Built world) {
        List<SpawnPolicy.Entry> hosts = List.of(
                new SpawnPolicy.Entry(
                        Target.parse(DemoWorld.NAS + ":8443"), SpawnPolicy.Scheme.HTTPS, OwnerQuery.Source.OWNER),
                new SpawnPolicy.Entry(
                        Target.parse("169.254.169.254:443"), SpawnPolicy.Scheme.HTTPS, OwnerQuery.Source.OWNER),
                forward(world.own().port()),
                forward(world.other().port()),
                forward(world.loopbackPort()));
        return new SpawnPolicy(
                ID,
                SpawnPolicy.Network.INTERNET,
                hosts,
                SpawnPolicy.DEFAULT_PROXY_PORT,
                Optional.empty(),
                OptionalInt.of(uid));
    }

    /** A listed loopback entry, as {@code run --allow 127.0.0.1:PORT} makes it. */
    private static SpawnPolicy.Entry forward(int port) {
        return new SpawnPolicy.Entry(
                Target.parse("127.0.0.1:" + port), SpawnPolicy.Scheme.TCP, OwnerQuery.Source.OWNER);
    }

    private static HostConfig host(DemoWorld.Built world, int gatewayUid) {
        HostConfig defaults = RunPolicy.hostDefaults(gatewayUid);
        return new HostConfig(
                defaults.denyList(),
                List.of(),
                List.of(),
                new HostConfig.Dns(List.of(world.dns().address()), Duration.ofSeconds(2)),
                defaults.owner(),
                defaults.limits(),
                defaults.log());
    }

    private void describe(PrintWriter out, SpawnPolicy policy) {
        out.println("The sandboxed curl runs with this policy (network \""
                + policy.network().json() + "\"):");
        for (SpawnPolicy.Entry entry : policy.hosts()) {
            out.println("  " + entry.target() + " (" + entry.scheme().json() + (entry.isForward() ? ", a forward" : "")
                    + ")");
        }
        out.println("in a new user and network namespace (" + sandbox.program() + ") that has loopback only.");
        out.println("The owner check takes uid " + gatewayUid
                + (gatewayUid == NOBODY ? " (standing in for you: run the demo with sudo to use yours)" : " (you)")
                + " as the gateway's user, as run does; Docker is optional, and only matters for containers.");
        out.flush();
    }

    /** Runs every curl in one sandbox, one after the other; one result per row, in order. */
    private List<CurlSeen> curl(Relay relay, SpawnPolicy policy, DemoWorld.Built world, List<DemoRow> rows)
            throws IOException, InterruptedException {
        // The sandbox's /tmp is its own: curl reads the world's certificate from a copy made there.
        StringBuilder script = new StringBuilder("printf '%s' ")
                .append(quote(Files.readString(world.certificate())))
                .append(" > ")
                .append(SANDBOX_CERTIFICATE)
                .append('\n');
        for (DemoRow row : rows) {
            script.append("curl -s -o /dev/null --max-time ")
                    .append(CURL_TIMEOUT.toSeconds())
                    .append(" --cacert ")
                    .append(SANDBOX_CERTIFICATE)
                    .append(" -w ")
                    .append(quote(CurlSeen.WRITE_OUT))
                    .append(' ')
                    .append(quote(row.url()))
                    .append('\n');
        }
        List<CurlSeen> seen = new ArrayList<>();
        try (Launch launch = opened(Launch.start(
                relay,
                policy,
                sandbox,
                tmp,
                entry,
                List.of("/bin/sh", "-c", script.toString()),
                pb -> pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectError(ProcessBuilder.Redirect.INHERIT)))) {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(launch.process().getInputStream(), StandardCharsets.UTF_8))) {
                for (int i = 0; i < rows.size(); i++) {
                    seen.add(CurlSeen.parse(lines.readLine()));
                }
            }
            long bound = CURL_TIMEOUT.toMillis() * (rows.size() + 2);
            if (!launch.process().waitFor(bound, TimeUnit.MILLISECONDS)) {
                throw new IOException("the sandboxed curl did not finish in " + bound + " ms");
            }
            if (!launch.entryWasReady()) {
                throw new IOException("the " + sandbox.program() + " sandbox or the entry did not start (exit "
                        + launch.process().exitValue() + ")");
            }
        }
        return seen;
    }

    private static void awaitDecisions(Map<String, Decision> decisions, List<DemoRow> rows)
            throws InterruptedException {
        long deadline = System.nanoTime() + DECISIONS_WAIT.toNanos();
        while (!rows.stream().allMatch(r -> decisions.containsKey(r.target())) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    /** A shell word that stands for exactly {@code text}. */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
