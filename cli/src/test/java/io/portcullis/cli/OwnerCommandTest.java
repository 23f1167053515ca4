package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code portcullis owner} in-process against this host's real kernel tables. Docker is pointed at
 * a socket that does not exist, so a root listener is judged without it whatever runs on the
 * machine: root's own ({@code owner-root}), since no container's proxy holds it; the Docker cases
 * run end to end in the {@code test} module.
 */
class OwnerCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    record Run(int status, String out, String err) {
        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    Run run(String... args) {
        CliRun run = CliRun.of("", args);
        return new Run(run.status(), run.out(), run.err());
    }

    String host() throws IOException {
        Path file = dir.resolve("host.json");
        Files.writeString(file, """
                {"owner": {"gatewayPort": 18789, "addons": ["studio"], "cacheMillis": 0,
                           "docker": "unix://%s"}}""".formatted(dir.resolve("no-docker.sock")));
        return file.toString();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void nothingListeningIsOwnerNoneWithEmptyEvidence() throws IOException {
        Run run = run("owner", "--spawn", "studio", "--host", host(), "127.0.0.1:" + freePort());
        assertEquals(1, run.status(), run.err());
        JsonNode json = run.json();
        assertEquals("deny", json.get("verdict").asText());
        assertEquals("owner-none", json.get("code").asText());
        assertTrue(!json.get("detail").asText().isEmpty());
        assertEquals(
                "{\"listeners\":[],\"processes\":[],\"container\":null}",
                json.get("evidence").toString());
        assertEquals("", run.err());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"127.0.0.1, owner-root", "localhost, owner-root"})
    void aRootListenerThatNoContainersProxyHoldsIsRootsWithoutDocker(String address, String expected)
            throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.ofLiteral("127.0.0.1"))) {
            Run run = run("owner", "--spawn", "studio", "--host", host(), address + ":" + s.getLocalPort());
            assertEquals(1, run.status(), run.err());
            JsonNode json = run.json();
            assertEquals(expected, json.get("code").asText(), json.toString());
            JsonNode listener = json.get("evidence").get("listeners").get(0);
            assertEquals(s.getLocalPort(), listener.get("port").asInt(), json.toString());
            assertEquals(0, listener.get("uid").asInt(), json.toString());
        }
    }

    @ParameterizedTest(name = "--default {0} -> {1}")
    @CsvSource({
        "192.168.1.10:8080, default-not-loopback",
        "[2001:db8::1]:8080, default-not-loopback",
        "127.0.0.1:18789,   default-gateway-port",
        "localhost:18789,   default-gateway-port",
        "[::1]:18789,       default-gateway-port",
    })
    void aManifestDefaultIsCheckedBeforeTheOwner(String target, String expected) throws IOException {
        Run run = run("owner", "--spawn", "studio", "--host", host(), "--default", target);
        assertEquals(1, run.status(), run.err());
        assertEquals(expected, run.json().get("code").asText());
        assertEquals(0, run.json().get("evidence").get("listeners").size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            nas.lan:8080       | expected: an address literal or localhost
            127.0.0.1          | ADDRESS:PORT
            127.0.0.1:0        | ADDRESS:PORT
            0x7f.1:80          | ADDRESS:PORT
            """)
    void aBadTargetIsAUsageError(String target, String message) throws IOException {
        Run run = run("owner", "--spawn", "studio", "--host", host(), target);
        assertEquals(2, run.status());
        assertEquals("", run.out());
        assertTrue(run.err().contains(message), run.err());
    }

    @Test
    void everyProblemAtOnce() throws IOException {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"owner\": {\"gatewayPort\": 70000}}");
        Run run = run("owner", "--spawn", " ", "--host", bad.toString(), "nas.lan:80");
        assertEquals(2, run.status());
        assertEquals("", run.out());
        for (String problem : List.of("owner.gatewayPort: 70000", "--spawn: \" \"", "ADDRESS:PORT: \"nas.lan:80\"")) {
            assertTrue(run.err().contains(problem), run.err());
        }
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("owner").status());
        assertEquals(2, run("owner", "127.0.0.1:80").status());
        assertEquals(2, run("owner", "--spawn", "studio").status());
        assertEquals(
                2,
                run("owner", "--spawn", "studio", "127.0.0.1:80", "127.0.0.1:81")
                        .status());
    }

    @Test
    void helpExitsZero() {
        Run top = run("--help");
        assertTrue(top.out().contains("owner"), top.out());
        Run owner = run("owner", "--help");
        assertEquals(0, owner.status());
        assertTrue(owner.out().contains("--default") && owner.out().contains("ADDRESS:PORT"), owner.out());
    }
}
