package io.portcullis.it.datapath;

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
        Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                {"id": "cli", "proxyPort": 39080, "hosts": [{"target": "127.0.0.1:39080", "scheme": "tcp"}],
                 "door": {"port": 3001, "routes": [], "tokenFile": "%s"}}""".formatted(dir.resolve("door-token")));
        Path parent = Files.createDirectory(dir.resolve("spawns"));
        return Portcullis.command(List.of("relay", "--spawn", spawn.toString(), "--dir", parent.toString()))
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
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
