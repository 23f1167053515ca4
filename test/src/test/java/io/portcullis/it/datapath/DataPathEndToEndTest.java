package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.dns.DnsRecordType;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Rows;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.it.world.TestWorld;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import io.portcullis.world.BulkPattern;
import io.portcullis.world.DnsAnswer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data path end to end: a relay with the policy's judge and the world's DNS, the real entry in a
 * spawn's namespace (loopback only), curl and socat as the spawn's programs, and the world's
 * origins. The JVM's own link addresses (93.184.77.1 and the like) are this host's own addresses.
 */
@NetnsTest
class DataPathEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final String INTERNET = """
            {"id": "web", "network": "internet", "hosts": [
              {"target": "nas.lan:8443", "scheme": "https"},
              {"target": "nas.lan:8080", "scheme": "tcp"},
              {"target": "93.184.77.10:7", "scheme": "tcp"},
              {"target": "93.184.77.10:9", "scheme": "tcp"},
              {"target": "127.0.0.1:5000", "scheme": "tcp"}]}
            """;

    @BeforeEach
    void zone() {
        world.zone()
                .set("www.example.test", DnsAnswer.of("93.184.77.10", "2001:4860:77::10"))
                .set("nas.lan", DnsAnswer.of("192.168.77.10"))
                .set("lan.test", DnsAnswer.of("192.168.77.11"))
                .set("mixed.test", DnsAnswer.of("93.184.77.10", "192.168.77.10"))
                .set("self.test", DnsAnswer.of("93.184.77.1"))
                .set("gone.test", DnsAnswer.nxdomain())
                .set("flip.test", DnsAnswer.of("93.184.77.11"), DnsAnswer.of("192.168.77.10"))
                .set("flop.test", DnsAnswer.of("192.168.77.10"), DnsAnswer.of("93.184.77.11"));
    }

    private static Spawn open(String limits, String spawn) throws Exception {
        return open(world.dir(), limits, spawn);
    }

    private static Spawn open(Path parent, String limits, String spawn) throws Exception {
        return Spawn.open(parent, world.dns().hostConfigForm(), limits, spawn);
    }

    private static String curl(String url) {
        return "curl -sS -o /dev/null -w '%{http_connect} %{http_code}\\n' --max-time 10 --cacert "
                + world.tls().certificatePem() + " --proxy \"$HTTPS_PROXY\" " + url;
    }

    /**
     * A shell pipeline: {@code CONNECT host:port}, then what {@code payload} prints, through socat
     * to the entry's proxy port (30 s for the other side after one side ended); prints what came
     * back after the 39 bytes of {@code 200 Connection established}.
     */
    private static String tunnel(String host, int port, String payload) {
        return "(printf 'CONNECT " + host + ":" + port + " HTTP/1.1\r\n\r\n'; " + payload + ")"
                + " | socat -t 30 -T 60 - TCP:127.0.0.1:${HTTPS_PROXY##*:} | tail -c +40";
    }

    @Test
    void aListedLanTargetIsReachedOverTls() throws Exception {
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run(
                    "curl -sS --max-time 10 --cacert " + world.tls().certificatePem() + " https://nas.lan:8443/listed",
                    60);

            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().contains("\"local\":\"192.168.77.10:8443\""), run.out());
            assertTrue(run.out().contains("\"tls\":true"), run.out());
            Decision decision = spawn.next();
            assertEquals("allow", Line.of(decision).verdict());
            assertEquals("nas.lan:8443", Line.of(decision).target());
            assertEquals(List.of("192.168.77.10"), Line.of(decision).resolved());
            assertEquals("192.168.77.10:8443", Line.of(decision).dialed());
            assertTrue(decision.bytesUp() > 0 && decision.bytesDown() > 0, decision.toString());
        }
    }

    /** target | CONNECT status | decision code ("-": allowed) | dialed ("-": none). */
    private static final List<String> ROWS = List.of(
            "www.example.test:443  | 200 | -                  | 93.184.77.10:443",
            "93.184.77.11:443      | 200 | -                  | 93.184.77.11:443",
            "lan.test:443          | 403 | not-global-unicast | -",
            "192.168.77.10:443     | 403 | not-global-unicast | -",
            "mixed.test:443        | 403 | not-global-unicast | -",
            "self.test:443         | 403 | own-address        | -",
            "93.184.77.1:443       | 403 | own-address        | -",
            "www.example.test:8443 | 403 | port-not-allowed   | -",
            "gone.test:443         | 502 | dns-failed         | -");

    private static Map<String, String> statuses;
    private static Map<String, Decision> decisions;

    static Stream<Arguments> rows() {
        return Rows.of(ROWS);
    }

    /** One entry run tries every row (a namespace and a JVM per row would take long); each row asserts its part. */
    private static synchronized void tryEveryRow() throws Exception {
        if (statuses != null) {
            return;
        }
        StringBuilder script = new StringBuilder();
        for (String row : ROWS) {
            String target = row.split("\\|")[0].strip();
            script.append("printf '%s ' ")
                    .append(target)
                    .append("; ")
                    .append(curl("https://" + target + "/row"))
                    .append("\n");
        }
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run(script.toString(), 120);
            statuses = new HashMap<>();
            for (String line : run.out().lines().toList()) {
                String[] parts = line.split(" ");
                statuses.put(parts[0], parts[1]);
            }
            decisions = new HashMap<>();
            for (Decision decision : spawn.all(500)) {
                decisions.put(Line.of(decision).target(), decision);
            }
        }
    }

    @ParameterizedTest(name = "{0} -> {1} {2}")
    @MethodSource("rows")
    void aConnectGetsTheVerdictOfItsTargetAndDialsOnlyWhatWasChecked(
            String target, String status, String code, String dialed) throws Exception {
        tryEveryRow();

        assertEquals(status, statuses.get(target), "CONNECT status of " + target + " in " + statuses);
        Decision decision = decisions.get(target);
        assertEquals(code, Line.of(decision).code(), decision.toString());
        assertEquals(dialed, Line.of(decision).dialed(), decision.toString());
        if (dialed != null) {
            assertTrue(
                    Line.of(decision).resolved().contains(dialed.substring(0, dialed.lastIndexOf(':'))),
                    decision.toString());
        }
    }

    @Test
    void aNameWhoseAnswerChangesIsResolvedOnceAndTheCheckedAddressIsDialed() throws Exception {
        try (Spawn spawn = open("", INTERNET)) {
            // -k: the origin's certificate does not name flip.test; the test is about where the tunnel goes.
            Run run = spawn.run(
                    "curl -sSk --max-time 10 https://flip.test/flip;" + " echo; " + curl("https://flop.test/flop"), 60);

            assertTrue(run.out().contains("\"local\":\"93.184.77.11:443\""), run.toString());
            Decision flip = spawn.next();
            assertEquals("allow", Line.of(flip).verdict(), flip.toString());
            assertEquals(List.of("93.184.77.11"), Line.of(flip).resolved());
            assertEquals("93.184.77.11:443", Line.of(flip).dialed());
            assertEquals(1, world.zone().queries("flip.test", DnsRecordType.A));
            Decision flop = spawn.next();
            assertEquals("not-global-unicast", Line.of(flop).code(), flop.toString());
            assertNull(Line.of(flop).dialed());
            assertEquals(1, world.zone().queries("flop.test", DnsRecordType.A));
        }
    }

    @Test
    void anAddressThatDoesNotAnswerInTimeIsSkippedAndAloneIs504() throws Exception {
        world.zone()
                .set("slow.lan", DnsAnswer.of("192.168.77.99", "192.168.77.10"))
                .set("dead.lan", DnsAnswer.of("192.168.77.99"));
        try (Spawn spawn = open("{\"connectTimeoutMillis\": 500}", """
                {"id": "lan", "hosts": [{"target": "slow.lan:8080", "scheme": "tcp"},
                                        {"target": "dead.lan:8080", "scheme": "tcp"}]}""")) {
            String fetch = "curl -sS -p -o /dev/null -w '%{http_connect} %{http_code}\\n' --max-time 10"
                    + " --proxy \"$HTTP_PROXY\" http://";
            Run run = spawn.run(fetch + "slow.lan:8080/slow; " + fetch + "dead.lan:8080/dead", 60);

            assertEquals(List.of("200 200", "504 000"), run.out().lines().toList(), run.toString());
            Decision slow = spawn.next();
            assertEquals("allow", Line.of(slow).verdict(), slow.toString());
            assertEquals(
                    List.of("192.168.77.99", "192.168.77.10"), Line.of(slow).resolved());
            assertEquals("192.168.77.10:8080", Line.of(slow).dialed());
            Decision dead = spawn.next();
            assertEquals("error", Line.of(dead).verdict(), dead.toString());
            assertEquals("connect-timeout", Line.of(dead).code());
            assertEquals("192.168.77.99:8080", Line.of(dead).dialed());
        }
    }

    @Test
    void theProxyPortMovesPastAForwardOnBothSides() throws Exception {
        try (Spawn spawn = open("", """
                {"id": "bump", "network": "internet", "proxyPort": 39080,
                 "hosts": [{"target": "127.0.0.1:39080", "scheme": "tcp"}]}""")) {
            assertEquals(39081, spawn.handle().proxyPort());

            Run run = spawn.run(
                    spawn.entryArgs(39080), "echo \"$HTTPS_PROXY\"; " + curl("https://www.example.test/bump"), 60);

            assertEquals(
                    List.of("http://127.0.0.1:39081", "200 200"),
                    run.out().lines().toList(),
                    run.toString());
        }
    }

    /**
     * TLS on 443 (R23): on the internet shape a tunnel must start with a ClientHello for its own
     * host. Plaintext after {@code 200} and a ClientHello naming another server are closed before a
     * byte reaches the origin; a listed tcp entry still carries any bytes (halfClosesPassBothWays).
     */
    @Test
    void anInternetTunnelCarriesOnlyAClientHelloForItsHost() throws Exception {
        String script = """
                import os, socket, ssl
                port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
                def tunnel(target):
                    s = socket.create_connection(("127.0.0.1", port), timeout=10)
                    s.sendall(b"CONNECT " + target.encode() + b" HTTP/1.1\\r\\n\\r\\n")
                    head = b""
                    while not head.endswith(b"\\r\\n\\r\\n"):
                        head += s.recv(1)
                    return s, head.split(b" ")[1].decode()
                s, status = tunnel("www.example.test:443")
                s.sendall(b"GET / HTTP/1.1\\r\\nHost: www.example.test\\r\\n\\r\\n")
                print("plain", status, repr(s.recv(100)))
                s, status = tunnel("www.example.test:443")
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                try:
                    context.wrap_socket(s, server_hostname="other.test")
                    print("other", status, "handshake")
                except (ssl.SSLError, OSError):
                    print("other", status, "closed")
                s, status = tunnel("93.184.77.10:443")
                s.sendall(b"\\x16\\x03\\x01\\x00\\x04\\x01\\x00\\x00\\x00" + b"GET / HTTP/1.1\\r\\n\\r\\n")
                print("fake", status, repr(s.recv(100)))
                s, status = tunnel("www.example.test:443")
                context.wrap_socket(s, server_hostname="www.example.test").close()
                print("same", status, "handshake")
                """;
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run("python3 -c '" + script + "'", 60);

            assertEquals(
                    "plain 200 b''\nother 200 closed\nfake 200 b''\nsame 200 handshake\n", run.out(), run.toString());
            for (String code : List.of("not-tls", "sni-mismatch", "not-tls")) {
                Decision decision = spawn.next();
                assertEquals("deny", Line.of(decision).verdict(), decision.toString());
                assertEquals(code, Line.of(decision).code(), decision.toString());
                assertEquals("93.184.77.10:443", Line.of(decision).dialed());
                assertEquals(0, decision.bytesUp(), "bytes reached the origin: " + decision);
                assertEquals(0, decision.bytesDown(), decision.toString());
            }
            Decision passed = spawn.next();
            assertEquals("allow", Line.of(passed).verdict(), passed.toString());
            assertTrue(passed.bytesUp() > 0 && passed.bytesDown() > 0, passed.toString());
        }
    }

    /**
     * A shadow policy (R26) on live traffic: enforced as internet, shadowed as listed. An unlisted
     * HTTPS fetch succeeds and its decision line shows the shadow's not-listed; the listed one,
     * where both agree, carries no shadow; the metric counts the difference.
     */
    @Test
    void aListedShadowRecordsWhatItWouldHaveRefusedAndRefusesNothing() throws Exception {
        try (Spawn spawn = open("", """
                {"id": "shadowed", "network": "internet",
                 "hosts": [{"target": "nas.lan:8443", "scheme": "https"}],
                 "shadow": {"network": "listed", "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}}""")) {
            Run run =
                    spawn.run(curl("https://www.example.test/shadow") + "; " + curl("https://nas.lan:8443/shadow"), 60);

            assertEquals("200 200\n200 200\n", run.out(), run.toString());
            Decision unlisted = spawn.next();
            assertEquals("allow", Line.of(unlisted).verdict(), unlisted.toString());
            assertEquals(
                    new Line.Shadow("deny", "not-listed"), Line.of(unlisted).shadow());
            Decision listed = spawn.next();
            assertEquals("allow", Line.of(listed).verdict(), listed.toString());
            assertNull(Line.of(listed).shadow(), listed.toString());
            assertTrue(
                    spawn.metricsText()
                            .contains(
                                    "portcullis_shadow_differences_total{code=\"not-listed\",verdict=\"deny\"} 1.0\n"),
                    spawn.metricsText());
        }
    }

    @Test
    void halfClosesPassBothWays() throws Exception {
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run(tunnel("93.184.77.10", 7, "printf half-closed"), 60);

            assertEquals("half-closed", run.out(), run.toString());
            Decision decision = spawn.next();
            assertEquals("allow", Line.of(decision).verdict());
            assertEquals(11, decision.bytesUp());
            assertEquals(11, decision.bytesDown());
        }
    }

    @Test
    void oneGibibyteArrivesWhole() throws Exception {
        long size = 1L << 30;
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run(
                    tunnel("93.184.77.10", 9, "printf 'get " + size + "\\n'")
                            + " | python3 -c 'import sys, zlib\nc = n = 0\n"
                            + "for b in iter(lambda: sys.stdin.buffer.read(1 << 20), b\"\"): c = zlib.crc32(b, c); n += len(b)\n"
                            + "print(n, format(c, \"x\"))'",
                    180);

            assertEquals(
                    size + " " + Long.toHexString(BulkPattern.crc32(size)),
                    run.out().strip(),
                    run.toString());
            assertEquals(size, spawn.next().bytesDown());
        }
    }

    @Test
    void aSlowHeadGets408AndAnIdleTunnelIsClosed() throws Exception {
        try (Spawn spawn = open("{\"headerTimeoutMillis\": 500, \"idleTimeoutMillis\": 800}", INTERNET)) {
            Run run = spawn.run(
                    "(printf 'CONNECT www.example.test:443 HTTP/1.1\\r\\n'; sleep 3)"
                            + " | socat -t 5 - TCP:127.0.0.1:${HTTPS_PROXY##*:} | head -n 1; "
                            + tunnel("93.184.77.10", 7, "printf x; sleep 4"),
                    60);

            assertEquals("HTTP/1.1 408 Request Timeout\r\nx", run.out(), run.toString());
            Decision slow = spawn.next();
            assertEquals("header-timeout", Line.of(slow).code());
            Decision idle = spawn.next();
            assertEquals("allow", Line.of(idle).verdict());
            assertTrue(idle.durationMillis() >= 800 && idle.durationMillis() < 3000, idle.toString());
        }
    }

    @Test
    void aTunnelWhoseClientStopsReadingIsClosedAfterTheIdleTime() throws Exception {
        // Regression: the client asks for 100 MB and never reads, so the relay's writes back up and
        // nothing moves; the idle close waited for a flush that could never finish, and the
        // tunnel stayed open past the idle time.
        try (Spawn spawn = open("{\"idleTimeoutMillis\": 800}", INTERNET)) {
            Run run = spawn.run(
                    "(printf 'CONNECT 93.184.77.10:9 HTTP/1.1\\r\\n\\r\\nget 100000000\\n'; sleep 8)"
                            + " | socat -t 8 - TCP:127.0.0.1:${HTTPS_PROXY##*:} | sleep 8; echo done",
                    60);

            assertEquals("done\n", run.out(), run.toString());
            Decision idle = spawn.next();
            assertEquals("allow", Line.of(idle).verdict());
            assertTrue(idle.durationMillis() >= 800 && idle.durationMillis() < 5000, idle.toString());
            assertTrue(idle.bytesDown() < 100_000_000, idle.toString());
        }
    }

    @Test
    void theSpawnsConnectionBudgetAnswers503() throws Exception {
        try (Spawn spawn = open("{\"spawnConnections\": 2}", INTERNET)) {
            String hold = "(" + tunnel("93.184.77.10", 7, "sleep 3") + " > /dev/null &); ";
            Run run = spawn.run(hold + hold + "sleep 1; " + curl("https://www.example.test/third"), 60);

            assertEquals("503 000", run.out().strip(), run.toString());
            List<String> codes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                codes.add(String.valueOf(Line.of(spawn.next()).code()));
            }
            assertEquals(List.of("limit-spawn", "null", "null"), codes);
        }
    }

    @Test
    void aRefusedForwardIsClosed() throws Exception {
        try (Spawn spawn = open("", INTERNET)) {
            Run run = spawn.run("curl -sS --max-time 10 http://127.0.0.1:5000/; echo \"curl $?\"", 60);

            assertTrue(run.out().strip().endsWith("curl 52"), run.toString());
            Decision decision = spawn.next();
            assertEquals("forward", decision.kind());
            assertEquals("owner-none", Line.of(decision).code());
            assertNull(Line.of(decision).dialed());
        }
    }

    @Test
    void onlyThePeerUidMayUseTheSpawnSocket() throws Exception {
        // The spawn's directory must be reachable for another uid: a parent that others may traverse.
        Path parent = Files.createDirectories(world.dir()
                .getParent()
                .resolve("portcullis-uid-" + ProcessHandle.current().pid()));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwx--x--x"));
        try (Spawn spawn = open(parent, "", """
                {"id": "uid", "network": "listed", "peerUid": 4242,
                 "hosts": [{"target": "nas.lan:8080", "scheme": "tcp"}]}""")) {
            assertEquals(0, Files.getAttribute(spawn.handle().directory(), "unix:uid"), "the directory stays root's");
            assertEquals(
                    "rwx--x--x",
                    PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(spawn.handle().directory())));
            assertEquals(4242, Files.getAttribute(spawn.handle().socket(), "unix:uid"));
            String fetch = "curl -sS -p -o /dev/null -w '%{http_connect} %{http_code}\\n' --max-time 10"
                    + " --proxy \"$HTTP_PROXY\" http://nas.lan:8080/uid";

            Run asRoot = spawn.run(fetch, 60);
            Run asPeer = Run.of(entryAs(4242, spawn, fetch), "", 60);

            // Root's entry is closed unanswered and starts nothing; that does not use the socket up.
            assertEquals(125, asRoot.exit(), asRoot.toString());
            // (the relay may close before the message is sent, or after: a broken pipe or no answer)
            assertTrue(
                    asRoot.err().contains("cannot hand the sockets to the relay")
                            && asRoot.err().contains("started nothing"),
                    asRoot.toString());
            assertEquals("200 200", asPeer.out().strip().replaceAll("(?s).*\\n", ""), asPeer.toString());
            assertEquals("peer-uid", Line.of(spawn.next()).code());
            Decision peer = spawn.next();
            assertEquals("allow", Line.of(peer).verdict());
            assertEquals("192.168.77.10:8080", Line.of(peer).dialed());
        } finally {
            Files.deleteIfExists(parent);
        }
    }

    /** SPEC R3: the spawn socket serves one hand-over, then it and its directory are gone. */
    @Test
    void theSpawnSocketIsGoneOnceTheEntryIsReadySoASecondHandOverCannotHappen() throws Exception {
        try (Spawn spawn = open("", INTERNET)) {
            Path socket = spawn.handle().socket();
            Run first =
                    spawn.run("ls " + socket.getParent().getParent() + "; test -e " + socket + "; echo gone=$?", 60);

            assertEquals(0, first.exit(), first.toString());
            assertTrue(first.out().strip().endsWith("gone=1"), first.toString());
            assertFalse(Files.exists(socket.getParent()), "the spawn's directory is removed with its socket");
            Run second = spawn.run("echo started", 60);
            assertEquals(125, second.exit(), second.toString());
            assertFalse(second.out().contains("started"), second.toString());
            assertTrue(second.err().contains("cannot hand the sockets to the relay"), second.toString());
        }
    }

    /**
     * The entry as {@code uid} (setpriv) in a spawn namespace, running {@code script}. Ports below
     * 1024 (the DNS socket's 53) are opened to every uid in that namespace first, as bubblewrap's
     * {@code CAP_NET_BIND_SERVICE} does for {@code run}.
     */
    private static ProcessBuilder entryAs(int uid, Spawn spawn, String script) {
        String java = System.getenv().getOrDefault("PORTCULLIS_JAVA", System.getProperty("java.home") + "/bin/java");
        List<String> entry = new ArrayList<>(List.of(
                "/bin/sh",
                "-c",
                "echo 0 >/proc/sys/net/ipv4/ip_unprivileged_port_start && exec \"$@\"",
                "sh",
                "setpriv",
                "--reuid",
                String.valueOf(uid),
                "--regid",
                String.valueOf(uid),
                "--clear-groups",
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                Portcullis.root().resolve("netns-entry/target/netns-entry.jar").toString(),
                "io.portcullis.entry.Main",
                "--relay",
                spawn.handle().socket().toString()));
        entry.addAll(spawn.entrySockets(spawn.handle().proxyPort()));
        entry.addAll(List.of("--", "sh", "-c", script));
        return Portcullis.withKey(
                new ProcessBuilder(TestWorld.inSpawnNamespace(entry)),
                spawn.handle().handoffKey());
    }
}
