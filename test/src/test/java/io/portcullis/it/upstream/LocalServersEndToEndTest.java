package io.portcullis.it.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.it.world.TestWorld;
import io.portcullis.it.world.Tinyproxy;
import io.portcullis.owner.testing.PythonListener;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import io.portcullis.world.DnsAnswer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An upstream proxy or DNS server on this host is trusted only while a uid the host configuration
 * names for it holds its port (SPEC R25, issue 26): another local uid that bound the upstream
 * proxy's port received {@code Proxy-Authorization} and every tunnel, and one that bound a DNS
 * server's port chose the addresses of listed names. Here that uid is a real process under uid
 * {@value #OTHER_UID} in this JVM's namespace, recording every connection and byte it receives; the
 * legitimate holders are tinyproxy and the test world's DNS server, whose sockets are root's.
 */
@NetnsTest
class LocalServersEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final int OTHER_UID = 4300;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String POLICY = """
            {"id": "local-servers", "network": "internet", "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}
            """;

    @BeforeEach
    void zone() {
        world.zone().set("origin.test", DnsAnswer.of("93.184.77.10")).set("nas.lan", DnsAnswer.of("192.168.77.10"));
    }

    @Test
    void anotherUidOnTheUpstreamProxysPortHearsNothing() throws Exception {
        Path credentials = world.dir().resolve("local-servers.credentials");
        Files.writeString(credentials, "alice:s3cret\n");
        Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-------"));
        try (PythonListener thief = PythonListener.v4("127.0.0.1")
                        .uid(OTHER_UID)
                        .recording()
                        .start();
                Spawn spawn = Spawn.withHost(world.dir(), host(thief.port(), credentials, ""), POLICY)) {
            Run run = spawn.run("curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://origin.test/", 60);
            assertEquals("502", run.out(), run.toString());
            Decision line = spawn.next();
            assertEquals("upstream-failed", Line.of(line).code(), line.toString());
            assertEquals(0, thief.connections(), "the other uid was connected to");
            assertEquals(0, thief.received(), "the other uid received bytes");
        }
    }

    /** The same listener, once the host configuration names its uid, is the proxy: it is sent the CONNECT. */
    @Test
    void aNamedUidOnTheUpstreamProxysPortIsTheProxy() throws Exception {
        Path credentials = world.dir().resolve("local-servers-named.credentials");
        Files.writeString(credentials, "alice:s3cret\n");
        Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-------"));
        try (PythonListener named = PythonListener.v4("127.0.0.1")
                        .uid(OTHER_UID)
                        .recording()
                        .start();
                Spawn spawn = Spawn.withHost(
                        world.dir(), host(named.port(), credentials, ", \"uids\": [" + OTHER_UID + "]"), POLICY)) {
            // It never answers: the relay gives the CONNECT up after connectTimeoutMillis.
            Run run = spawn.run("curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://origin.test/", 60);
            assertEquals("502", run.out(), run.toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (named.received() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, named.connections(), run.toString());
            assertTrue(named.received() > 0, "the named uid's proxy was sent the CONNECT");
        }
    }

    @Test
    void tinyproxyHoldingItsOwnPortIsTheProxy() throws Exception {
        try (Tinyproxy proxy = Tinyproxy.start(List.of("ConnectPort 443"), null);
                Spawn spawn = Spawn.withHost(
                        world.dir(),
                        "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]},"
                                + " \"upstream\": {\"proxy\": \"http://127.0.0.1:" + proxy.port() + "\"}}",
                        POLICY)) {
            Run run = spawn.run(curl("https://origin.test/tinyproxy"), 60);
            assertTrue(run.out().contains("\"local\":\"93.184.77.10:443\""), run.toString());
            assertEquals(List.of("CONNECT 93.184.77.10:443 HTTP/1.1"), proxy.requests(), proxy.log());
        }
    }

    /**
     * A DNS server's port held by another uid is asked nothing, by the relay and by {@code
     * portcullis check}: a listed name is {@code dns-failed} with it alone, and resolves through the
     * next server when there is one.
     */
    @Test
    void anotherUidOnADnsServersPortIsAskedNothing() throws Exception {
        try (PythonListener thief =
                PythonListener.v4("127.0.0.1").udp().uid(OTHER_UID).recording().start()) {
            String thiefServer = "127.0.0.1:" + thief.port();
            try (Spawn spawn = Spawn.withHost(world.dir(), dnsHost(List.of(thiefServer), ""), POLICY)) {
                Run run =
                        spawn.run("curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://nas.lan:8443/", 60);
                assertEquals("502", run.out(), run.toString());
                Decision line = spawn.next();
                assertEquals("dns-failed", Line.of(line).code(), line.toString());
            }
            try (Spawn spawn = Spawn.withHost(
                    world.dir(), dnsHost(List.of(thiefServer, world.dns().hostConfigForm()), ""), POLICY)) {
                Run run = spawn.run(curl("https://nas.lan:8443/next"), 60);
                assertTrue(run.out().contains("\"local\":\"192.168.77.10:8443\""), run.toString());
            }

            Path host = world.dir().resolve("local-servers-dns.json");
            Files.writeString(host, dnsHost(List.of(thiefServer), ""));
            Path spawnFile = world.dir().resolve("local-servers-spawn.json");
            Files.writeString(spawnFile, POLICY);
            Run check = Portcullis.run(
                    List.of("check", "--spawn", spawnFile.toString(), "--host", host.toString(), "nas.lan:8443"), "");
            assertEquals(1, check.exit(), check.toString());
            JsonNode verdict = JSON.readTree(check.out());
            assertEquals("dns-failed", verdict.get("code").asText(), check.toString());
            assertTrue(verdict.get("detail").asText().contains("held by uid " + OTHER_UID), check.toString());

            assertEquals(0, thief.received(), "the other uid received a DNS query");
        }
    }

    /** The world's DNS server (root's socket) answers by default, and as a named uid; not when another uid is named. */
    @Test
    void theDnsServersUidsAreTheConfiguredOnes() throws Exception {
        String server = world.dns().hostConfigForm();
        try (Spawn spawn = Spawn.withHost(world.dir(), dnsHost(List.of(server), ", \"uids\": [0]"), POLICY)) {
            Run run = spawn.run(curl("https://nas.lan:8443/named"), 60);
            assertTrue(run.out().contains("\"local\":\"192.168.77.10:8443\""), run.toString());
        }
        try (Spawn spawn =
                Spawn.withHost(world.dir(), dnsHost(List.of(server), ", \"uids\": [" + OTHER_UID + "]"), POLICY)) {
            int asked = world.zone().queries("nas.lan");
            Run run = spawn.run("curl -sS -o /dev/null -w '%{http_connect}' --max-time 10 https://nas.lan:8443/", 60);
            assertEquals("502", run.out(), run.toString());
            Decision line = spawn.next();
            assertEquals("dns-failed", Line.of(line).code(), line.toString());
            assertEquals(asked, world.zone().queries("nas.lan"), "the unnamed server was asked");
        }
    }

    private static String host(int proxyPort, Path credentials, String more) {
        return "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"], \"timeoutMillis\": 2000},"
                + " \"limits\": {\"connectTimeoutMillis\": 2000},"
                + " \"upstream\": {\"proxy\": \"http://127.0.0.1:" + proxyPort + "\", \"credentialsFile\": \""
                + credentials + "\"" + more + "}}";
    }

    private static String dnsHost(List<String> servers, String more) {
        return "{\"dns\": {\"servers\": [\"" + String.join("\", \"", servers) + "\"], \"timeoutMillis\": 2000" + more
                + "}}";
    }

    private static String curl(String url) {
        return "curl -sS --max-time 10 --cacert " + world.tls().certificatePem() + " " + url;
    }
}
