package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./portcullis daemon} as a bot supervisor runs it, driven with curl over the control
 * socket: spawns, SIGHUP reloads (a bad file keeps the old generation), SIGTERM removes every
 * directory and the socket. Also the metrics file of {@code ./portcullis relay}.
 */
@Timeout(120)
class DaemonCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path control;
    private Path spawns;
    private Path host;

    private Process start() throws Exception {
        return start(List.of());
    }

    /** The daemon, its command line after {@code prefix} (a command that execs it). */
    private Process start(List<String> prefix) throws Exception {
        host = Files.writeString(dir.resolve("host.json"), "{}");
        spawns = Files.createDirectory(dir.resolve("spawns"));
        control = dir.resolve("control.sock");
        ProcessBuilder daemon = Portcullis.command(List.of(
                "daemon", "--host", host.toString(), "--control", control.toString(), "--dir", spawns.toString()));
        daemon.command().addAll(0, prefix);
        return daemon.redirectError(dir.resolve("stderr.txt").toFile()).start();
    }

    private static JsonNode firstLine(Process process) throws Exception {
        var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null, "no ready line");
        return JSON.readTree(line);
    }

    /** curl over the control socket: the status code, then the body. */
    private Run curl(String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "curl",
                "-sS",
                "--max-time",
                "10",
                "--unix-socket",
                control.toString(),
                "-X",
                method,
                "-w",
                "\n%{http_code}",
                "http://portcullis" + path));
        if (body != null) {
            command.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", body));
        }
        return Run.of(command, "", 20);
    }

    private static int status(Run run) {
        String out = run.out().strip();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1));
    }

    private long generation() throws Exception {
        return curl("GET", "/metrics", null)
                .out()
                .lines()
                .filter(line -> line.startsWith("portcullis_config_generation "))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
                .findFirst()
                .orElse(-1);
    }

    private void awaitGeneration(long expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (generation() != expected && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(expected, generation());
    }

    @Test
    void aDaemonCappedBelowItsFirstHeapStillStarts() throws Exception {
        // Regression: the daemon's -Xms96m beside an operator's -Xmx64m stopped the JVM at start.
        host = Files.writeString(dir.resolve("host.json"), "{}");
        spawns = Files.createDirectory(dir.resolve("spawns"));
        control = dir.resolve("control.sock");
        ProcessBuilder builder = Portcullis.command(List.of(
                "daemon", "--host", host.toString(), "--control", control.toString(), "--dir", spawns.toString()));
        builder.environment().merge("PORTCULLIS_JAVA_OPTS", " -Xmx64m", String::concat);
        Process daemon =
                builder.redirectError(dir.resolve("stderr.txt").toFile()).start();
        try {
            assertEquals(1, firstLine(daemon).get("generation").asLong(), Files.readString(dir.resolve("stderr.txt")));
        } finally {
            daemon.destroy();
            daemon.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDaemonStartedUnderNohupStillReloadsOnSighup() throws Exception {
        // Regression: started with SIGHUP ignored (nohup, or a test run under it), the JVM installed
        // no handler, so logrotate's SIGHUP neither reopened the log nor reloaded, and nothing said so.
        Process daemon = start(List.of("nohup"));
        try {
            assertEquals(1, firstLine(daemon).get("generation").asLong());
            Files.writeString(host, "{\"denyList\": [\"203.0.113.0/24\"]}");
            Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
            awaitGeneration(2);
            assertTrue(Files.readString(dir.resolve("stderr.txt"))
                    .contains("SIGHUP was ignored when this process started"));
        } finally {
            daemon.destroy();
            daemon.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void spawnsReloadsAndACleanStop() throws Exception {
        Process daemon = start();
        try {
            JsonNode ready = firstLine(daemon);
            assertEquals(control.toString(), ready.get("control").asText());
            assertEquals(1, ready.get("generation").asLong());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(control)));

            for (String id : List.of("bot-a", "bot-b")) {
                Run open = curl("POST", "/spawns", "{\"id\": \"" + id + "\"}");
                assertEquals(201, status(open), open.toString());
            }
            assertEquals(2, countSpawnDirectories());
            assertFalse(
                    Run.of(List.of("ss", "-Hltnp"), "", 10).out().contains("pid=" + daemon.pid() + ","),
                    "the daemon holds a TCP listening socket");

            Files.writeString(host, "{\"denyList\": [\"203.0.113.0/24\"]}");
            Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
            awaitGeneration(2);

            Files.writeString(host, "{\"denyList\": [\"203.0.113.0/33\"]}");
            Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
            Run reload = curl("POST", "/reload", null);
            assertEquals(400, status(reload), reload.toString());
            assertTrue(reload.out().contains("denyList"), reload.out());
            assertEquals(2, generation());
            assertTrue(daemon.isAlive());

            daemon.destroy();

            assertTrue(daemon.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, daemon.exitValue());
            assertEquals(0, countSpawnDirectories());
            assertFalse(Files.exists(control));
            assertTrue(Files.readString(dir.resolve("stderr.txt")).contains("denyList"), "the refused reload says why");
        } finally {
            daemon.destroyForcibly();
        }
    }

    /**
     * Issue 25: the descriptor warning came at start and again at every reload. It is said once,
     * and again only when a reload changes its figures.
     */
    @Test
    void theDescriptorWarningIsSaidOnceAndAgainOnlyWhenItsFiguresChange() throws Exception {
        host = Files.writeString(dir.resolve("host.json"), "{}");
        spawns = Files.createDirectory(dir.resolve("spawns"));
        control = dir.resolve("control.sock");
        Path stderr = dir.resolve("stderr.txt");
        ProcessBuilder command = Portcullis.command(List.of(
                "daemon", "--host", host.toString(), "--control", control.toString(), "--dir", spawns.toString()));
        command.command().addAll(0, List.of("prlimit", "--nofile=4096:4096", "--"));
        Process daemon = command.redirectError(stderr.toFile()).start();
        try {
            firstLine(daemon);
            assertEquals(1, descriptorWarnings(stderr).size(), Files.readString(stderr));
            JsonNode warning = JSON.readTree(descriptorWarnings(stderr).getFirst());
            assertEquals("warn", warning.get("level").asText());
            assertEquals(4096, warning.get("descriptorLimit").asLong());
            assertTrue(
                    warning.get("message")
                            .asText()
                            .startsWith("the descriptor limit 4096 lets the relay hold 1760"
                                    + " connections, fewer than limits.relayConnections 16384 (33344 descriptors)"),
                    warning.toString());

            Files.writeString(host, "{\"denyList\": [\"203.0.113.0/24\"]}");
            Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
            awaitGeneration(2);
            assertEquals(1, descriptorWarnings(stderr).size(), "the same figures again: " + Files.readString(stderr));

            Files.writeString(host, "{\"limits\": {\"relayConnections\": 8000}}");
            Run.of(List.of("kill", "-HUP", Long.toString(daemon.pid())), "", 10);
            awaitGeneration(3);
            assertEquals(2, descriptorWarnings(stderr).size(), "new figures: " + Files.readString(stderr));
        } finally {
            daemon.destroy();
            daemon.waitFor(20, TimeUnit.SECONDS);
            daemon.destroyForcibly();
        }
    }

    private static List<String> descriptorWarnings(Path stderr) throws Exception {
        return Files.readAllLines(stderr).stream()
                .filter(line -> line.contains("descriptor limit"))
                .toList();
    }

    @Test
    void aMissingHostFileIsAConfigurationError() throws Exception {
        Run run = Portcullis.run(
                List.of(
                        "daemon",
                        "--host",
                        dir.resolve("none.json").toString(),
                        "--control",
                        dir.resolve("c.sock").toString()),
                "");

        assertEquals(2, run.exit(), run.toString());
        assertFalse(Files.exists(dir.resolve("c.sock")));
    }

    @Test
    void theRelayCommandWritesItsMetricsFileAndOnceMoreAtExit() throws Exception {
        Path spawn = Files.writeString(dir.resolve("spawn.json"), "{\"id\": \"metered\"}");
        Path metrics = dir.resolve("relay.prom");
        Process relay = Portcullis.command(List.of(
                        "relay",
                        "--spawn",
                        spawn.toString(),
                        "--dir",
                        dir.toString(),
                        "--metrics-file",
                        metrics.toString(),
                        "--metrics-every",
                        "1"))
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        try {
            firstLine(relay);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!(Files.exists(metrics) && Files.readString(metrics).contains("portcullis_spawns_open 1.0"))
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(Files.readString(metrics).contains("portcullis_open_connections{spawn=\"metered\"} 0.0"));

            relay.getOutputStream().close();

            assertTrue(relay.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, relay.exitValue());
            assertTrue(Files.readString(metrics).contains("portcullis_spawns_open 0.0"), Files.readString(metrics));
        } finally {
            relay.destroyForcibly();
        }
    }

    private long countSpawnDirectories() throws Exception {
        try (Stream<Path> left = Files.list(spawns)) {
            return left.count();
        }
    }
}
