package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./portcullis daemon} run as a service (SPEC R43): a Prometheus scrape over TCP by another
 * uid, which promtool finds nothing wrong with; the health routes on the metrics listener and the
 * control socket; the operational log as one JSON object per line, at the level asked for.
 */
@Timeout(180)
class OperationsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NOBODY = "65534";

    @TempDir
    Path dir;

    private Process daemon;
    private Path control;
    private Path host;
    private JsonNode ready;

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.destroyForcibly();
        }
    }

    /** Starts the daemon with a metrics listener on a port the kernel picks, and {@code extra} options. */
    private void start(String... extra) throws Exception {
        host = Files.writeString(dir.resolve("host.json"), "{}");
        control = dir.resolve("control.sock");
        List<String> args = new ArrayList<>(List.of(
                "daemon",
                "--host",
                host.toString(),
                "--control",
                control.toString(),
                "--dir",
                Files.createDirectory(dir.resolve("spawns")).toString(),
                "--metrics-listen",
                "127.0.0.1:0"));
        args.addAll(List.of(extra));
        daemon = Portcullis.command(args)
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        String line =
                new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null, "no ready line; stderr: " + Files.readString(dir.resolve("stderr.txt")));
        ready = JSON.readTree(line);
    }

    private String metricsAddress() {
        return ready.get("metrics").asText();
    }

    /** curl as {@code uid} ({@code setpriv}, no groups): the status code on the last line, after the body. */
    private static Run curl(String uid, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "curl", "-sS", "--max-time", "10"));
        command.addAll(args);
        command.addAll(List.of("-w", "\n%{http_code}"));
        return Run.of(command, "", 30);
    }

    private static int status(Run run) {
        String out = run.out().strip();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1));
    }

    private static String body(Run run) {
        return run.out().substring(0, run.out().lastIndexOf('\n'));
    }

    /** promtool from the Debian package {@code prometheus} (.ci/run installs it): the test fails without it. */
    private static String promtool() {
        for (String folder : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(folder, "promtool");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new AssertionError(
                "promtool: not on PATH (expected: the Debian package prometheus, as .ci/run installs)");
    }

    @Test
    void aScrapeOverTcpByAnotherUidIsPrometheusTextThatPromtoolFindsNothingIn() throws Exception {
        start();

        Run scrape = curl(NOBODY, List.of("-f", "http://" + metricsAddress() + "/metrics"));

        assertEquals(0, scrape.exit(), scrape.toString());
        assertEquals(200, status(scrape));
        String text = body(scrape);
        assertTrue(
                text.lines()
                        .anyMatch(line -> line.matches(
                                "portcullis_build_info\\{commit=\"[0-9a-f]{40}\",version=\"[^\"]+\"} 1(\\.0)?")),
                text);
        for (String series : List.of(
                "portcullis_spawns_open ",
                "portcullis_config_generation ",
                "process_cpu_seconds_total ",
                "process_open_fds ",
                "jvm_memory_used_bytes{",
                "jvm_threads_current ")) {
            assertTrue(text.lines().anyMatch(line -> line.startsWith(series)), series + " not in\n" + text);
        }
        Run check = Run.of(List.of(promtool(), "check", "metrics"), text, 30);
        assertEquals(0, check.exit(), check.toString());
        assertEquals("", check.out() + check.err());
    }

    @Test
    void healthAndReadinessAnswerOnTheMetricsListenerAndTheControlSocket() throws Exception {
        start();

        for (String path : List.of("/healthz", "/readyz")) {
            Run tcp = curl(NOBODY, List.of("http://" + metricsAddress() + path));
            Run unix = curl("0", List.of("--unix-socket", control.toString(), "http://portcullis" + path));

            assertEquals(200, status(tcp), tcp.toString());
            assertEquals(200, status(unix), unix.toString());
            assertEquals(body(tcp), body(unix));
        }
        assertEquals(404, status(curl(NOBODY, List.of("http://" + metricsAddress() + "/spawns"))));
        assertEquals(405, status(curl(NOBODY, List.of("-X", "POST", "http://" + metricsAddress() + "/metrics"))));
    }

    @Test
    void theOperationalLogIsOneJsonObjectPerLineWithSpawnsAndOneRefusedReload() throws Exception {
        start();
        Run open = curl(
                "0",
                List.of("--unix-socket", control.toString(), "-d", "{\"id\": \"bot-a\"}", "http://portcullis/spawns"));
        assertEquals(201, status(open), open.toString());
        assertEquals(
                204,
                status(curl(
                        "0",
                        List.of(
                                "--unix-socket",
                                control.toString(),
                                "-X",
                                "DELETE",
                                "http://portcullis/spawns/bot-a"))));
        Files.writeString(host, "{\"denyList\": [\"203.0.113.0/33\"], \"colour\": 1}");
        Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
        awaitLogLine("reload refused");
        stopCleanly();

        List<JsonNode> lines = logLines();
        for (JsonNode line : lines) {
            String time = line.get("time").asText();
            assertTrue(time.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"), time);
            OffsetDateTime.parse(time);
            assertTrue(
                    Set.of("error", "warn", "info", "debug")
                            .contains(line.get("level").asText()),
                    line.toString());
            assertTrue(!line.get("logger").asText().isBlank(), line.toString());
            assertTrue(line.hasNonNull("message"), line.toString());
        }
        assertEquals(1, withMessage(lines, "spawn opened").size(), lines.toString());
        assertEquals(
                "bot-a",
                withMessage(lines, "spawn opened").getFirst().get("spawn").asText());
        assertEquals(
                "info",
                withMessage(lines, "spawn opened").getFirst().get("level").asText());
        assertEquals(
                "bot-a",
                withMessage(lines, "spawn closed").getFirst().get("spawn").asText());
        List<JsonNode> refused = withMessage(lines, "reload refused");
        assertEquals(1, refused.size(), "one warning for one refused reload: " + lines);
        assertEquals("warn", refused.getFirst().get("level").asText());
        assertTrue(refused.getFirst().get("message").asText().contains("denyList[0]"), refused.toString());
        assertTrue(refused.getFirst().get("message").asText().contains("colour"), refused.toString());
    }

    @Test
    void atLevelErrorNeitherInfoNorWarningsAreWritten() throws Exception {
        start("--log-level", "error");
        Run open = curl(
                "0",
                List.of("--unix-socket", control.toString(), "-d", "{\"id\": \"bot-b\"}", "http://portcullis/spawns"));
        assertEquals(201, status(open), open.toString());
        Files.writeString(host, "{\"colour\": 1}");
        Run reload = curl("0", List.of("--unix-socket", control.toString(), "-X", "POST", "http://portcullis/reload"));
        assertEquals(400, status(reload), reload.toString());
        stopCleanly();

        assertEquals(List.of(), logLines());
    }

    @Test
    void atLevelDebugTheDebugLinesAreWrittenToo() throws Exception {
        start("--log-level", "debug");
        assertEquals(200, status(curl(NOBODY, List.of("http://" + metricsAddress() + "/healthz"))));
        assertEquals(200, status(curl("0", List.of("--unix-socket", control.toString(), "http://portcullis/spawns"))));
        stopCleanly();

        List<JsonNode> lines = logLines();
        assertTrue(lines.stream().anyMatch(line -> line.get("level").asText().equals("info")), lines.toString());
        assertEquals(
                1, withMessage(lines, "metrics listener: GET /healthz: 200").size(), lines.toString());
        assertEquals(1, withMessage(lines, "control GET /spawns: 200").size(), lines.toString());
    }

    private void stopCleanly() throws Exception {
        daemon.destroy();
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "no exit 30 s after SIGTERM");
        assertEquals(0, daemon.exitValue());
    }

    /** Every line of the daemon's standard error, each parsed as JSON (a line that is not fails the test). */
    private List<JsonNode> logLines() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        try (Stream<String> text = Files.lines(dir.resolve("stderr.txt"))) {
            for (String line : text.toList()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    private static List<JsonNode> withMessage(List<JsonNode> lines, String start) {
        return lines.stream()
                .filter(line -> line.get("message").asText().startsWith(start))
                .toList();
    }

    private void awaitLogLine(String start) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (Files.readString(dir.resolve("stderr.txt")).contains("\"message\":\"" + start)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no log line \"" + start + "...\" within 20 s");
    }
}
