package io.portcullis.it.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.it.world.TestWorld;
import io.portcullis.it.world.Tinyproxy;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.ZoneDnsServer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upstream proxy (SPEC R25) with Debian's tinyproxy: the spawn's CONNECT and plain HTTP go
 * through it to the test world's hosts, and tinyproxy's own log shows what it was asked: the
 * checked address, never the name (the name only with {@code sendNames}). A target the relay
 * refuses never reaches it, and its refusals come back as {@code upstream-refused}.
 */
@NetnsTest
class UpstreamEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final String POLICY = """
            {"id": "corp", "network": "internet", "hosts": [
              {"target": "nas.lan:80", "scheme": "http"},
              {"target": "origin.test:7", "scheme": "tcp"}]}
            """;

    @BeforeEach
    void zone() {
        world.zone().set("origin.test", DnsAnswer.of("93.184.77.10")).set("nas.lan", DnsAnswer.of("192.168.77.10"));
    }

    @Test
    void connectAndPlainHttpReachTheProxyAsCheckedAddressesAndRefusalsNeverDo() throws Exception {
        // ConnectPort 443: tinyproxy refuses a CONNECT to any other port with 403.
        try (Tinyproxy proxy = Tinyproxy.start(List.of("ConnectPort 443"), null);
                Spawn spawn = Spawn.withHost(world.dir(), host(proxy, ""), POLICY)) {
            Run run = spawn.run(
                    String.join(
                            "\n",
                            "echo '=== tls'; " + curl("https://origin.test/through"),
                            "echo '=== plain'; curl -sS --max-time 10 http://nas.lan/plain",
                            "echo '=== refused'; curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://nas.lan/",
                            "echo; echo '=== upstream-refused'; printf 'CONNECT origin.test:7 HTTP/1.1\\r\\nHost: origin.test:7\\r\\n\\r\\n'"
                                    + " | socat -t 5 -T 10 - TCP:127.0.0.1:${HTTP_PROXY##*:} | tr -d '\\r'"),
                    120);
            Map<String, String> out = sections(run.out());
            assertTrue(out.get("tls").contains("\"local\":\"93.184.77.10:443\""), run.toString());
            assertTrue(out.get("plain").contains("\"local\":\"192.168.77.10:80\""), run.toString());
            assertTrue(out.get("plain").contains("\"target\":\"/plain\""), run.toString());
            assertEquals("403", out.get("refused").strip(), run.toString());
            String refusal = out.get("upstream-refused");
            assertTrue(refusal.startsWith("HTTP/1.1 502 Bad Gateway\n"), refusal);
            assertTrue(refusal.contains("\nPortcullis-Error: upstream-refused\n"), refusal);
            assertTrue(refusal.contains("(the upstream proxy answered 403)"), refusal);

            List<String> asked = proxy.requests();
            assertEquals(
                    List.of(
                            "CONNECT 93.184.77.10:443 HTTP/1.1",
                            "GET http://192.168.77.10:80/plain HTTP/1.1",
                            "CONNECT 93.184.77.10:7 HTTP/1.1"),
                    asked,
                    proxy.log());
            assertFalse(proxy.log().contains("origin.test"), proxy.log());
            assertFalse(proxy.log().contains("nas.lan"), proxy.log());

            Map<String, Decision> lines = byTarget(spawn.all(500));
            Decision tls = lines.get("origin.test:443");
            assertEquals("allow", Line.of(tls).verdict(), lines.toString());
            assertEquals("93.184.77.10:443", Line.of(tls).dialed());
            assertEquals(
                    new Line.Upstream("127.0.0.1:" + proxy.port(), "CONNECT 93.184.77.10:443", 200),
                    Line.of(tls).upstream());
            Decision plain = lines.get("nas.lan:80");
            assertEquals("allow", Line.of(plain).verdict(), lines.toString());
            assertEquals(
                    new Line.Upstream("127.0.0.1:" + proxy.port(), "http://192.168.77.10:80", 200),
                    Line.of(plain).upstream());
            Decision refused = lines.get("nas.lan:443");
            assertEquals("not-global-unicast", Line.of(refused).code(), lines.toString());
            assertNull(Line.of(refused).upstream());
            Decision upstreamRefused = lines.get("origin.test:7");
            assertEquals("error", Line.of(upstreamRefused).verdict(), lines.toString());
            assertEquals("upstream-refused", Line.of(upstreamRefused).code());
            assertEquals(403, Line.of(upstreamRefused).upstream().status());
        }
    }

    @Test
    void sendNamesTellsTheProxyTheNameAndReloadsTakeANewUpstream() throws Exception {
        // tinyproxy resolves the name itself with sendNames: its resolver is a DNS server of this test on 127.0.0.1:53.
        Path credentials = world.dir().resolve("upstream.credentials");
        Files.writeString(credentials, "alice:s3cret\n");
        Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-------"));
        ZoneDnsServer dns53 = ZoneDnsServer.start(world.zone(), InetAddress.getLoopbackAddress(), 53);
        try (Tinyproxy proxy = Tinyproxy.start(
                        List.of("ConnectPort 443", "BasicAuth alice s3cret"), "nameserver 127.0.0.1\n");
                Spawn spawn = Spawn.withHost(
                        world.dir(),
                        host(proxy, ", \"sendNames\": true, \"credentialsFile\": \"" + credentials + "\""),
                        POLICY)) {
            Run named = spawn.run(curl("https://origin.test/named"), 60);
            assertTrue(named.out().contains("\"local\":\"93.184.77.10:443\""), named.toString());
            assertEquals(List.of("CONNECT origin.test:443 HTTP/1.1"), proxy.requests(), proxy.log());
            Decision line = spawn.next();
            assertEquals("allow", Line.of(line).verdict(), line.toString());
            assertNull(Line.of(line).dialed(), "with sendNames the relay does not know what the proxy dialed");
            assertEquals("CONNECT origin.test:443", Line.of(line).upstream().sent());

            // The same proxy without the credentials: tinyproxy answers 407.
            spawn.relay().reload(HostConfigJson.parse("host.json", host(proxy, "")));
            Run unauthorised;
            try (Spawn second = spawn.another(POLICY.replace("\"corp\"", "\"corp-2\""))) {
                unauthorised = second.run(
                        "curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://origin.test/unauthorised",
                        60);
            }
            assertEquals("502", unauthorised.out(), unauthorised.toString());
            Decision refused = spawn.next();
            assertEquals("upstream-refused", Line.of(refused).code(), refused.toString());
            assertEquals(407, Line.of(refused).upstream().status());

            // No upstream: dialed directly, and tinyproxy hears nothing more.
            int before = proxy.requests().size();
            spawn.relay()
                    .reload(HostConfigJson.parse(
                            "host.json",
                            "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]}}"));
            Run direct;
            try (Spawn third = spawn.another(POLICY.replace("\"corp\"", "\"corp-3\""))) {
                direct = third.run(curl("https://origin.test/direct"), 60);
            }
            assertTrue(direct.out().contains("\"local\":\"93.184.77.10:443\""), direct.toString());
            Decision directLine = spawn.next();
            assertNull(Line.of(directLine).upstream(), directLine.toString());
            assertEquals("93.184.77.10:443", Line.of(directLine).dialed());
            assertEquals(before, proxy.requests().size(), proxy.log());
        } finally {
            dns53.close();
        }
    }

    @Test
    void portcullisRunGoesThroughTheProxyWithALogFile() throws Exception {
        Path host = world.dir().resolve("upstream-host.json");
        Path log = world.dir().resolve("upstream-run.jsonl");
        try (Tinyproxy proxy = Tinyproxy.start(List.of(), null)) {
            Files.writeString(host, host(proxy, ""));
            Run run = Portcullis.run(
                    List.of(
                            "run",
                            "--host",
                            host.toString(),
                            "--log",
                            log.toString(),
                            "--internet",
                            "--allow",
                            "nas.lan:80/http",
                            "--share-tmp", // curl reads the world's certificate from the host's /tmp
                            "--",
                            "/bin/sh",
                            "-c",
                            curl("https://origin.test/run") + " && curl -sS --max-time 10 http://nas.lan/run"),
                    "");
            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().contains("\"local\":\"93.184.77.10:443\""), run.toString());
            assertTrue(run.out().contains("\"local\":\"192.168.77.10:80\""), run.toString());
            assertEquals(
                    List.of("CONNECT 93.184.77.10:443 HTTP/1.1", "GET http://192.168.77.10:80/run HTTP/1.1"),
                    proxy.requests(),
                    proxy.log());
            String lines = Files.readString(log);
            assertTrue(lines.contains("\"upstream\":{\"proxy\":\"127.0.0.1:" + proxy.port()), lines);
        }
    }

    private static String host(Tinyproxy proxy, String more) {
        return "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"], \"timeoutMillis\": 2000},"
                + " \"upstream\": {\"proxy\": \"http://127.0.0.1:" + proxy.port() + "\"" + more + "}}";
    }

    private static String curl(String url) {
        return "curl -sS --max-time 10 --cacert " + world.tls().certificatePem() + " " + url;
    }

    /** The script's output split at its {@code === name} lines. */
    private static Map<String, String> sections(String out) {
        Map<String, String> sections = new java.util.LinkedHashMap<>();
        String name = null;
        for (String line : out.lines().toList()) {
            if (line.startsWith("=== ")) {
                name = line.substring(4);
                sections.put(name, "");
            } else if (name != null) {
                sections.merge(name, line + "\n", String::concat);
            }
        }
        return sections;
    }

    private static Map<String, Decision> byTarget(List<Decision> decisions) {
        return decisions.stream().collect(Collectors.toMap(d -> Line.of(d).target(), Function.identity(), (a, b) -> a));
    }
}
