package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code portcullis check} in-process, with names answered by a DNS server on loopback. */
class CheckCommandTest {
    static ZoneDnsServer dns;

    @TempDir
    Path dir;

    @BeforeAll
    static void startDns() throws InterruptedException {
        Zone zone = new Zone()
                .set("public.test", DnsAnswer.of("93.184.216.34", "2606:2800:220:1::1"))
                .set("split.test", DnsAnswer.of("93.184.216.34", "10.0.0.5"))
                .set("nas.lan", DnsAnswer.of("192.168.1.10"));
        dns = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
    }

    @AfterAll
    static void stopDns() {
        dns.close();
    }

    record Run(int status, String out, String err) {
        List<JsonNode> lines() throws IOException {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : out.lines().toList()) {
                lines.add(new ObjectMapper().readTree(line));
            }
            return lines;
        }
    }

    Run run(String stdin, String... args) {
        CliRun run = CliRun.of(stdin, args);
        return new Run(run.status(), run.out(), run.err());
    }

    /** A loopback port nothing listens on, so the owner check answers owner-none. */
    static final int QUIET_PORT = quietPort();

    static int quietPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String spawn(String network) throws IOException {
        Path file = dir.resolve("spawn.json");
        Files.writeString(file, """
                {"id": "studio", "network": "%s", "hosts": [
                  {"target": "nas.lan:8443", "scheme": "https"},
                  {"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(network, QUIET_PORT));
        return file.toString();
    }

    String host() throws IOException {
        Path file = dir.resolve("host.json");
        Files.writeString(file, """
                {"dns": {"servers": ["127.0.0.1:%d"], "timeoutMillis": 3000}}""".formatted(dns.address().getPort()));
        return file.toString();
    }

    @Test
    void oneLinePerTargetInInputOrder() throws IOException {
        Run run = run(
                "",
                "check",
                "--spawn",
                spawn("internet"),
                "--host",
                host(),
                "public.test:443",
                "split.test:443",
                "nas.lan:8443",
                "127.0.0.1:" + QUIET_PORT,
                "a@b:443",
                "public.test:80");
        assertEquals(1, run.status(), run.err());
        assertEquals(
                List.of(
                        "public.test:443",
                        "split.test:443",
                        "nas.lan:8443",
                        "127.0.0.1:" + QUIET_PORT,
                        "a@b:443",
                        "public.test:80"),
                run.lines().stream().map(l -> l.get("target").asText()).toList());
        assertEquals(
                List.of("allow", "deny", "allow", "deny", "deny", "deny"),
                run.lines().stream().map(l -> l.get("verdict").asText()).toList());
        assertEquals(
                List.of("", "not-global-unicast", "", "owner-none", "bad-request", "port-not-allowed"),
                run.lines().stream().map(l -> l.path("code").asText()).toList());
        assertEquals(
                "[\"93.184.216.34\",\"2606:2800:220:1::1\"]",
                run.lines().get(0).get("addresses").toString());
        assertEquals(
                "[\"93.184.216.34\",\"10.0.0.5\"]",
                run.lines().get(1).get("addresses").toString());
        run.lines()
                .forEach(l -> assertTrue(!l.get("detail").asText().isEmpty()
                        && !l.get("detail").asText().contains("\n")));
    }

    /**
     * A tcp entry reached by name shows its synthetic socket (R24); a tunnel that must start with a
     * TLS ClientHello shows the name it must carry (R23), none for an IP literal.
     */
    @Test
    void theNamedSocketAndTheClientHelloAreShown() throws IOException {
        Path file = dir.resolve("named.json");
        Files.writeString(file, """
                {"id": "db", "network": "internet", "hosts": [
                  {"target": "nas.lan:5432", "scheme": "tcp"},
                  {"target": "nas.lan:8443", "scheme": "https"}]}""");
        Run run = run(
                "",
                "check",
                "--spawn",
                file.toString(),
                "--host",
                host(),
                "nas.lan:5432",
                "nas.lan:8443",
                "93.184.216.34:443");
        assertEquals(0, run.status(), run.err());
        assertEquals("127.77.0.1:5432", run.lines().get(0).get("named").asText());
        assertTrue(run.lines().get(0).path("clientHello").isMissingNode(), run.out());
        assertTrue(run.lines().get(1).path("named").isMissingNode(), run.out());
        assertEquals(
                "nas.lan",
                run.lines().get(1).get("clientHello").get("serverName").asText());
        assertTrue(run.lines().get(2).get("clientHello").get("serverName").isNull(), run.out());
    }

    /** With a shadow policy (R26) each line shows what the shadow would answer too. */
    @Test
    void theShadowsAnswerIsShown() throws IOException {
        Path file = dir.resolve("shadowed.json");
        Files.writeString(file, """
                {"id": "s", "network": "internet", "shadow": {"network": "listed",
                 "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}}""");
        Run run = run("", "check", "--spawn", file.toString(), "--host", host(), "public.test:443", "nas.lan:8443");
        assertEquals(1, run.status(), run.err());
        assertEquals(
                "{\"verdict\":\"deny\",\"code\":\"not-listed\"}",
                run.lines().get(0).get("shadow").toString());
        assertEquals("allow", run.lines().get(0).get("verdict").asText());
        assertEquals("deny", run.lines().get(1).get("verdict").asText());
        // Refused before any lookup (port-not-allowed): the shadow, which never looks a name up itself, cannot tell.
        assertEquals(
                "{\"verdict\":\"unknown\"}", run.lines().get(1).get("shadow").toString());
    }

    @Test
    void allAllowedExitsZero() throws IOException {
        Run run = run("", "check", "--spawn", spawn("internet"), "--host", host(), "nas.lan:8443", "93.184.216.34:443");
        assertEquals(0, run.status(), run.err());
        assertEquals(2, run.lines().size());
    }

    @Test
    void targetsFromStandardInput() throws IOException {
        Run run = run(
                "nas.lan:8443\n\n127.0.0.1:" + QUIET_PORT + "\r\nhttp://nas.lan:8443\n",
                "check",
                "--spawn",
                spawn("listed"),
                "--host",
                host());
        assertEquals(1, run.status(), run.err());
        assertEquals(
                List.of("allow", "deny", "deny"),
                run.lines().stream().map(l -> l.get("verdict").asText()).toList());
        assertEquals("owner-none", run.lines().get(1).get("code").asText());
        assertEquals("not-listed", run.lines().get(2).get("code").asText());
    }

    /**
     * A dry run gives the relay's verdict for the same bytes (R40): check trimmed whitespace and a
     * BOM around a line of standard input and allowed it, where the relay refuses the request line.
     */
    static Stream<Arguments> standardInputLines() {
        return Stream.of(
                Arguments.of("LF", "nas.lan:8443\n", List.of("allow")),
                Arguments.of("CRLF", "nas.lan:8443\r\n", List.of("allow")),
                Arguments.of("no line end", "nas.lan:8443", List.of("allow")),
                Arguments.of("a leading space", " nas.lan:8443\n", List.of("bad-request")),
                Arguments.of("a trailing space", "nas.lan:8443 \n", List.of("bad-request")),
                Arguments.of("a tab", "\tnas.lan:8443\n", List.of("bad-request")),
                Arguments.of("a UTF-8 BOM", "\uFEFFnas.lan:8443\n", List.of("bad-request")),
                Arguments.of("a no-break space", "nas.lan:8443\u00A0\n", List.of("bad-request")),
                Arguments.of("CR CR LF", "nas.lan:8443\r\r\n", List.of("bad-request")),
                Arguments.of("a lone CR", "nas.lan:8443\r", List.of("bad-request")),
                Arguments.of("a lone CR between two", "nas.lan:8443\rnas.lan:8443\n", List.of("bad-request")),
                Arguments.of("UTF-8 that clients send as xn--", "faß.lan:8443\n", List.of("bad-request")),
                Arguments.of("comments and empty lines", "# nas\n\n\r\n#\nnas.lan:8443\n", List.of("allow")),
                Arguments.of("a space before #", " # nas\n", List.of("bad-request")),
                Arguments.of("a line of spaces", "   \n", List.of("bad-request")),
                Arguments.of("plain HTTP with a path", "http://nas.lan:8443/a?b\n", List.of("not-listed")),
                Arguments.of("plain HTTP with a space", "http://nas.lan:8443/a b\n", List.of("bad-request")));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("standardInputLines")
    void standardInputIsTakenAsIs(String name, String stdin, List<String> codes) throws IOException {
        Run run = run(stdin, "check", "--spawn", spawn("listed"), "--host", host());
        assertEquals(
                codes,
                run.lines().stream().map(l -> l.path("code").asText("allow")).toList(),
                run.out());
    }

    /** An argument is judged like the same bytes on standard input. */
    @Test
    void argumentsAreTakenAsIs() throws IOException {
        Run run = run("", "check", "--spawn", spawn("listed"), "--host", host(), " nas.lan:8443", "nas.lan:8443");
        assertEquals(
                List.of("bad-request", "allow"),
                run.lines().stream().map(l -> l.path("code").asText("allow")).toList());
    }

    /** The lines of standard input: only LF or CRLF removed; empty lines and # lines skipped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("splitLines")
    void splitsOnLineEndsOnly(String name, byte[] input, List<String> lines) {
        assertEquals(lines, CheckCommand.lines(input));
    }

    static Stream<Arguments> splitLines() {
        return Stream.of(
                Arguments.of("empty", new byte[0], List.of()),
                Arguments.of("LF and CRLF", bytes("a:1\nb:2\r\nc:3"), List.of("a:1", "b:2", "c:3")),
                Arguments.of("CR kept", bytes("a:1\r\r\nb:2\r"), List.of("a:1\r", "b:2\r")),
                Arguments.of("spaces kept", bytes(" a:1 \n\t\n"), List.of(" a:1 ", "\t")),
                Arguments.of("comments", bytes("#x\n\n\r\n# y\na:1"), List.of("a:1")),
                Arguments.of(
                        "bytes as ISO-8859-1",
                        new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, 'a', ':', '1'},
                        List.of("\u00ef\u00bb\u00bfa:1")));
    }

    static byte[] bytes(String ascii) {
        return ascii.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void networkNoneIsModeNone() throws IOException {
        Run run = run("", "check", "--spawn", spawn("none"), "--host", host(), "nas.lan:8443");
        assertEquals(1, run.status());
        assertEquals("mode-none", run.lines().get(0).get("code").asText());
        assertEquals(0, run.lines().get(0).get("addresses").size());
    }

    @Test
    void withoutDnsServersTheSystemResolverIsNamedOnceOnStandardError() throws IOException {
        Path noServers = Files.writeString(dir.resolve("no-servers.json"), "{}");
        String targets = "93.184.216.34:443\n127.0.0.1:" + QUIET_PORT + "\n";
        Run run = run(targets, "check", "--spawn", spawn("internet"), "--host", noServers.toString());
        assertEquals(List.of(CheckCommand.SYSTEM_RESOLVER), run.err().lines().toList());
        assertTrue(CheckCommand.SYSTEM_RESOLVER.contains("/etc/resolv.conf"));
        assertEquals(2, run.lines().size(), run.out());

        Run withServers = run("", "check", "--spawn", spawn("internet"), "--host", host(), "93.184.216.34:443");
        assertEquals("", withServers.err());
    }

    @Test
    void everyConfigurationProblemOnStandardErrorAndExitTwo() throws IOException {
        Path bad = dir.resolve("bad.json");
        Files.writeString(
                bad,
                "{\"id\": \"x\", \"network\": \"all\", \"hosts\": [{\"target\": \"*.a:1\", \"scheme\": \"tcp\"}]}");
        Path badHost = dir.resolve("badhost.json");
        Files.writeString(badHost, "{\"denyList\": [\"10.0.0.1/8\"]}");
        Run run = run("", "check", "--spawn", bad.toString(), "--host", badHost.toString(), "nas.lan:8443");
        assertEquals(2, run.status());
        assertEquals(List.of(), run.lines());
        assertTrue(run.err().contains("network: \"all\" (expected: one of none, listed, internet)"), run.err());
        assertTrue(run.err().contains("hosts[0].target: \"*.a:1\""), run.err());
        assertTrue(run.err().contains("denyList[0]: \"10.0.0.1/8\" (expected: host bits zero)"), run.err());
    }

    @Test
    void usageErrorsExitTwo() throws IOException {
        assertEquals(2, run("", "check").status());
        assertEquals(
                2,
                run("", "check", "--spawn", dir.resolve("missing.json").toString(), "a:1")
                        .status());
        assertEquals(2, run("", "check", "--spawn").status());
        assertEquals(2, run("", "nonsense").status());
    }

    @Test
    void helpExitsZero() throws IOException {
        Run top = run("", "--help");
        assertEquals(0, top.status());
        assertTrue(top.out().contains("check"), top.out());
        Run check = run("", "check", "--help");
        assertEquals(0, check.status());
        assertTrue(check.out().contains("--spawn=FILE") && check.out().contains("standard input"), check.out());
    }
}
