package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: docs/operations.md's logrotate stanza signalled a pid file that nothing wrote, and
 * {@code || true} hid it, so the daemon kept writing to the rotated file. The stanza of the page
 * itself, run by the real {@code logrotate} against a daemon started with {@code --pid-file}.
 */
@Timeout(180)
class LogRotationEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DOCUMENTED_LOG = "/var/log/portcullis/decisions.jsonl";
    private static final String DOCUMENTED_PID_FILE = "/run/portcullis/daemon.pid";

    @TempDir
    Path dir;

    @Test
    void theDocumentedStanzaRotatesTheDecisionLogOfARunningDaemon() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Path log = logs.resolve("decisions.jsonl");
        Path pidFile = dir.resolve("daemon.pid");
        Path control = dir.resolve("control.sock");
        Path host = Files.writeString(dir.resolve("host.json"), "{\"log\": {\"file\": \"" + log + "\"}}");
        Path config = Files.writeString(dir.resolve("logrotate.conf"), stanza(log, pidFile));
        Process daemon = daemon(host, control, pidFile);
        try {
            ready(daemon);
            assertEquals(daemon.pid() + "\n", Files.readString(pidFile));
            Path socket = spawnSocket(control);
            refusedOnce(socket);
            awaitLines(log, 1);

            Run rotate = logrotate(config);
            assertEquals(0, rotate.exit(), rotate.toString());
            Path rotated = logs.resolve("decisions.jsonl.1");
            assertTrue(Files.exists(rotated), "logrotate moved the log: " + rotate);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (lines(log) == 0 && System.nanoTime() < deadline) {
                refusedOnce(socket);
                Thread.sleep(100);
            }
            assertTrue(lines(log) >= 1, "no line in the new decision log after the rotation");
            int rotatedLines = lines(rotated);
            int newLines = lines(log);
            refusedOnce(socket);
            awaitLines(log, newLines + 1);
            assertEquals(rotatedLines, lines(rotated), "lines still went to the rotated file");
            for (String line : Files.readAllLines(log)) {
                assertEquals("peer-uid", JSON.readTree(line).get("code").asText(), line);
            }

            daemon.destroy();
            assertTrue(daemon.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, daemon.exitValue());
            assertFalse(Files.exists(pidFile), "the pid file outlived a clean exit");

            // No daemon, no pid file: the stanza says so, nothing hides it.
            Run unsignalled = logrotate(config);
            assertNotEquals(0, unsignalled.exit(), unsignalled.toString());
            assertTrue(unsignalled.err().contains("error"), unsignalled.toString());
        } finally {
            daemon.destroyForcibly();
        }
    }

    @Test
    void aPidFileThatNamesARunningProcessIsRefusedAtStart() throws Exception {
        Path pidFile = dir.resolve("daemon.pid");
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(pidFile, sleeper.pid() + "\n");
            Path host = Files.writeString(dir.resolve("host.json"), "{}");
            Run run = Run.of(
                    Portcullis.command(List.of(
                            "daemon",
                            "--host",
                            host.toString(),
                            "--control",
                            dir.resolve("control.sock").toString(),
                            "--pid-file",
                            pidFile.toString())),
                    "",
                    60);
            assertEquals(2, run.exit(), run.toString());
            assertTrue(
                    run.err().contains("--pid-file: " + pidFile + " names pid " + sleeper.pid() + ", which is running"),
                    run.err());
            assertEquals(sleeper.pid() + "\n", Files.readString(pidFile), "another's pid file is left alone");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    /** The stanza of docs/operations.md, with this test's log and pid file for the documented ones. */
    private static String stanza(Path log, Path pidFile) throws Exception {
        String page = Files.readString(Portcullis.root().resolve("docs/operations.md"));
        int start = page.indexOf("```\n" + DOCUMENTED_LOG + " {\n");
        assertTrue(start >= 0, "docs/operations.md holds no logrotate stanza for " + DOCUMENTED_LOG);
        String stanza = page.substring(start + 4, page.indexOf("```", start + 4));
        assertFalse(stanza.contains("|| true"), stanza);
        assertTrue(stanza.contains(DOCUMENTED_PID_FILE), stanza);
        return stanza.replace(DOCUMENTED_LOG, log.toString()).replace(DOCUMENTED_PID_FILE, pidFile.toString());
    }

    private Run logrotate(Path config) throws Exception {
        return Run.of(
                List.of(
                        "logrotate",
                        "--force",
                        "--state",
                        dir.resolve("logrotate.state").toString(),
                        config.toString()),
                "",
                60);
    }

    private Process daemon(Path host, Path control, Path pidFile) throws Exception {
        return Portcullis.command(List.of(
                        "daemon",
                        "--host",
                        host.toString(),
                        "--control",
                        control.toString(),
                        "--dir",
                        Files.createDirectory(dir.resolve("spawns")).toString(),
                        "--pid-file",
                        pidFile.toString()))
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
    }

    private static void ready(Process daemon) throws Exception {
        var out = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null && line.contains("\"control\""), "no ready line: " + line);
    }

    /** A spawn whose peer must be uid 65534: each connection of this test's uid is refused peer-uid, a line. */
    private static Path spawnSocket(Path control) throws Exception {
        Run open = Run.of(
                List.of(
                        "curl",
                        "-sS",
                        "--max-time",
                        "10",
                        "--unix-socket",
                        control.toString(),
                        "-H",
                        "Content-Type: application/json",
                        "--data-binary",
                        "{\"id\": \"rotate\", \"peerUid\": 65534}",
                        "http://portcullis/spawns"),
                "",
                20);
        JsonNode spawn = JSON.readTree(open.out());
        return Path.of(spawn.get("socket").asText());
    }

    /** One connection to the spawn socket as this test's uid, which the daemon closes unread. */
    private static void refusedOnce(Path socket) throws Exception {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            channel.read(ByteBuffer.allocate(1));
        }
    }

    private static int lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    private static void awaitLines(Path file, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (lines(file) < count) {
            assertTrue(System.nanoTime() < deadline, file + ": fewer than " + count + " lines after 20 s");
            Thread.sleep(50);
        }
    }
}
