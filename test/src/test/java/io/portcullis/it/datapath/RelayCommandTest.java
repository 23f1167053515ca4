package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./portcullis relay} as a wall runs it: the ready line, no TCP listener, and the spawn's
 * directory gone after each way of stopping. Loopback only: nothing is dialed.
 */
class RelayCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Process start() throws Exception {
        return start(List.of());
    }

    /** Starts the relay; {@code limits} is prlimit(1)'s command line around it, or empty. */
    private Process start(List<String> limits) throws Exception {
        Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                {"id": "cli", "proxyPort": 39080, "hosts": [{"target": "127.0.0.1:39080", "scheme": "tcp"}],
                 "door": {"port": 3001, "routes": [], "tokenFile": "%s"}}""".formatted(dir.resolve("door-token")));
        Path parent = Files.createDirectories(dir.resolve("spawns"));
        ProcessBuilder relay =
                Portcullis.command(List.of("relay", "--spawn", spawn.toString(), "--dir", parent.toString()));
        if (!limits.isEmpty()) {
            List<String> argv = new ArrayList<>(limits);
            argv.addAll(relay.command());
            relay.command(argv);
            // HotSpot raises the soft limit itself unless told not to: the relay's own raise is what is tested.
            relay.environment().merge("PORTCULLIS_JAVA_OPTS", " -XX:-MaxFDLimit", String::concat);
        }
        return relay.redirectError(dir.resolve("stderr.txt").toFile()).start();
    }

    private static JsonNode ready(Process relay) throws Exception {
        var out = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null, "no ready line");
        return JSON.readTree(line);
    }

    @Test
    void theReadyLineNamesTheSocketAndTheLifelineEndsTheSpawn() throws Exception {
        Process relay = start();
        try {
            JsonNode ready = ready(relay);
            Path socket = Path.of(ready.get("socket").asText());

            assertEquals(39081, ready.get("proxyPort").asInt());
            assertEquals("[39080]", ready.get("forwards").toString());
            assertEquals(3001, ready.get("door").asInt());
            assertEquals(
                    dir.resolve("door-token").toString(), ready.get("tokenFile").asText());
            assertTrue(Files.exists(dir.resolve("door-token")));
            assertTrue(Files.exists(socket));
            assertEquals(dir.resolve("spawns"), socket.getParent().getParent());
            assertFalse(listensOnTcp(relay.pid()), "the relay holds a TCP listening socket");

            relay.getOutputStream().close();

            assertTrue(relay.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, relay.exitValue());
            assertFalse(Files.exists(socket.getParent()));
            assertFalse(Files.exists(dir.resolve("door-token")));
        } finally {
            relay.destroyForcibly();
        }
    }

    @Test
    void theDescriptorLimitIsRaisedToTheHardLimitAtStart() throws Exception {
        String hard = openFilesLimit(ProcessHandle.current().pid()).split(" ")[1];
        assumeTrue(!hard.equals("unlimited") && Long.parseLong(hard) > 1024, "hard limit " + hard);
        Process relay = start(List.of("prlimit", "--nofile=1024:" + hard, "--"));
        try {
            ready(relay);

            assertEquals(hard + " " + hard, openFilesLimit(relay.pid()));
        } finally {
            relay.destroyForcibly();
        }
    }

    @Test
    void aHardLimitBelowTheBudgetsNeedIsNamedAtStart() throws Exception {
        Process relay = start(List.of("prlimit", "--nofile=1024:1024", "--"));
        try {
            ready(relay);

            String err = Files.readString(dir.resolve("stderr.txt"));
            assertTrue(
                    err.contains("the descriptor limit 1024 lets the relay hold 224 connections, fewer than"
                            + " limits.relayConnections 16384 (33344 descriptors)"),
                    err);
        } finally {
            relay.destroyForcibly();
        }
    }

    /**
     * Log rotation: after {@code mv} and SIGHUP the next decision line is in a new file of the
     * old name, mode 0640, and the moved file keeps what it had. The lines come from connections
     * to the spawn socket by a uid other than its {@code peerUid} (refused {@code peer-uid}).
     */
    @Test
    void sighupReopensTheDecisionLogAfterAMove() throws Exception {
        Path log = dir.resolve("decisions.log");
        Path moved = dir.resolve("decisions.log.1");
        Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                {"id": "rotate", "peerUid": 65534}""");
        Path host = Files.writeString(dir.resolve("host.json"), """
                {"log": {"file": "%s"}}""".formatted(log));
        Process relay = Portcullis.command(List.of(
                        "relay", "--spawn", spawn.toString(), "--host", host.toString(), "--dir", dir.toString()))
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        try {
            Path socket = Path.of(ready(relay).get("socket").asText());
            refusedOnce(socket);
            awaitLines(log, 1);
            Files.move(log, moved);

            Run.of(List.of("kill", "-HUP", Long.toString(relay.pid())), "", 10);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (lines(log) == 0 && relay.isAlive() && System.nanoTime() < deadline) {
                refusedOnce(socket);
                Thread.sleep(100);
            }

            assertTrue(relay.isAlive(), "SIGHUP ended the relay");
            assertTrue(lines(log) >= 1, "no line in a new decision log after SIGHUP");
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
            for (Path file : List.of(log, moved)) {
                for (String line : Files.readAllLines(file)) {
                    assertEquals("peer-uid", JSON.readTree(line).get("code").asText(), line);
                }
            }
            assertTrue(Files.readAllLines(moved).size() >= 1);
        } finally {
            relay.destroyForcibly();
        }
    }

    /** One connection to the spawn socket as this test's uid, which the relay closes unread. */
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
        while (System.nanoTime() < deadline) {
            if (lines(file) >= count) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(file + ": fewer than " + count + " lines after 20 s");
    }

    /** The soft and hard "Max open files" of {@code pid}, from /proc. */
    private static String openFilesLimit(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
            if (line.startsWith("Max open files")) {
                String[] words =
                        line.substring("Max open files".length()).trim().split("\\s+");
                return words[0] + " " + words[1];
            }
        }
        throw new AssertionError("no Max open files in /proc/" + pid + "/limits");
    }

    /**
     * A relay killed with SIGKILL leaves its spawn directory and door token behind; the same
     * command starts again with no hand cleaning, and the new relay removes the old directory.
     */
    @Test
    void afterSigkillTheSameCommandStartsAgainAndTheOldDirectoryGoes() throws Exception {
        Process first = start();
        Path left;
        try {
            left = Path.of(ready(first).get("socket").asText()).getParent();
        } finally {
            first.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        }
        assertTrue(Files.exists(left), "SIGKILL removed the directory (nothing left to test)");

        Process second = start();
        try {
            Path socket = Path.of(ready(second).get("socket").asText());

            assertFalse(Files.exists(left), "the killed relay's directory is still there");
            assertTrue(Files.exists(socket));
        } finally {
            second.destroyForcibly();
        }
    }

    @Test
    void sigtermIsACleanStop() throws Exception {
        Process relay = start();
        try {
            Path socket = Path.of(ready(relay).get("socket").asText());

            relay.destroy();

            assertTrue(relay.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, relay.exitValue());
            assertFalse(Files.exists(socket.getParent()));
        } finally {
            relay.destroyForcibly();
        }
    }

    @Test
    void everyConfigurationProblemIsNamedAndNothingStarts() throws Exception {
        Path spawn = Files.writeString(dir.resolve("bad-spawn.json"), """
                {"id": "bad", "hosts": [{"target": "*.example.test:443", "scheme": "https"}], "colour": "red"}""");
        Path host = Files.writeString(dir.resolve("bad-host.json"), """
                {"limits": {"headerBytes": -1}}""");

        Run run = Portcullis.run(
                List.of("relay", "--spawn", spawn.toString(), "--host", host.toString(), "--dir", dir.toString()), "");

        assertEquals(2, run.exit(), run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().contains("hosts[0].target"), run.err());
        assertTrue(run.err().contains("colour"), run.err());
        assertTrue(run.err().contains("limits.headerBytes"), run.err());
        try (var left = Files.list(dir)) {
            assertEquals(
                    0,
                    left.filter(p -> p.getFileName().toString().startsWith("spawn-"))
                            .count());
        }
    }

    /** Whether {@code pid} holds a TCP socket in LISTEN state, from ss(8). */
    private static boolean listensOnTcp(long pid) throws Exception {
        Run ss = Run.of(List.of("ss", "-Hltnp"), "", 10);
        return ss.out().contains("pid=" + pid + ",");
    }
}
