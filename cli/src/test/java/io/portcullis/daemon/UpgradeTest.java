package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.RemoteEntry;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC R44 in one process: a successor daemon takes a running daemon's spawns over its control
 * socket ({@code POST /upgrade}) and the control path; the running one steps back without ending
 * the spawn. An upgrade that fails, or a request it cannot serve, leaves the running daemon as it
 * was. Real control sockets, real SCM_RIGHTS, the entry in a network namespace of its own.
 */
@Timeout(90)
class UpgradeTest {
    private static final int PROXY = 39680;

    @TempDir
    Path dir;

    private final BlockingQueue<Decision> before = new LinkedBlockingQueue<>();
    private final BlockingQueue<Decision> after = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Path control;
    private Path spawns;
    private Path host;
    private Daemon running;
    private RemoteEntry entry;

    @BeforeEach
    void start() throws Exception {
        control = dir.resolve("control.sock");
        spawns = Files.createDirectory(dir.resolve("spawns"));
        host = Files.writeString(dir.resolve("host.json"), "{}");
        running = Daemon.start(relay(before), control, () -> HostConfigJson.read(host));
        closing.add(running);
        entry = RemoteEntry.start();
        closing.add(entry);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
    }

    private Relay relay(BlockingQueue<Decision> decisions) throws Exception {
        return Relay.builder(HostConfigJson.read(host))
                .directory(spawns)
                .decisions(decisions::add)
                .judge((policy, request) ->
                        CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test")))
                .start();
    }

    /** Opens spawn {@code id} with a door whose token is {@code token}'s file, and hands its sockets over. */
    private JsonNode open(String id, Path token) throws IOException {
        String policy = "{\"id\": \"" + id + "\", \"proxyPort\": " + PROXY + ", \"door\": {\"port\": 3601,"
                + " \"routes\": [], \"tokenFile\": \"" + token + "\"}}";
        ControlClient.Answer answer = ControlClient.call(control, "POST", "/spawns", policy);
        assertEquals(201, answer.status(), answer.body());
        return answer.json();
    }

    private void handOver(JsonNode spawn) throws IOException {
        entry.handOverWithDoor(
                Path.of(spawn.get("socket").asText()), spawn.get("handoffKey").asText(), PROXY, 3601);
    }

    /** One request on the proxy port from inside the spawn's namespace; the status line. */
    private String ask() throws IOException {
        try (SpawnClient client = entry.connect(PROXY)) {
            client.write("CONNECT 192.0.2.1:443 HTTP/1.1\r\n\r\n");
            return client.readHead().lines().findFirst().orElse("");
        }
    }

    private Daemon upgrade() throws Exception {
        Relay relay = relay(after);
        try {
            Daemon successor =
                    Daemon.upgrade(relay, control, () -> HostConfigJson.read(host), Daemon.Settings.defaults());
            closing.add(successor);
            return successor;
        } catch (Predecessor.Failed | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    @Test
    void theSuccessorServesTheSpawnAndTheControlPathAndTheRunningDaemonStepsBack() throws Exception {
        Path token = dir.resolve("kiosk-token");
        handOver(open("kiosk", token));
        String text = Files.readString(token);
        assertTrue(ask().startsWith("HTTP/1.1 403"));
        assertNotNull(before.poll(5, TimeUnit.SECONDS));

        Daemon successor = upgrade();

        assertEquals(ProcessHandle.current().pid(), running.upgraded().get(5, TimeUnit.SECONDS));
        assertEquals(1, successor.predecessor().orElseThrow().restored().size());
        SpawnHandle restored = successor.relay().spawn("kiosk").orElseThrow();
        assertEquals(SpawnHandle.State.SERVING, restored.state());
        assertEquals(
                SpawnHandle.State.STOPPED,
                running.relay().spawn("kiosk").orElseThrow().state());
        JsonNode listed = ControlClient.call(control, "GET", "/spawns").json();
        assertTrue(listed.get(0).get("socket").isNull(), "the successor answers: " + listed);
        assertTrue(ask().startsWith("HTTP/1.1 403"));
        assertNotNull(after.poll(5, TimeUnit.SECONDS), "the successor decided the new connection");
        assertTrue(before.isEmpty(), "the running daemon accepts no more");

        running.close();
        assertTrue(Files.exists(control), "the control path is the successor's");
        assertEquals(text, Files.readString(token), "the door token stays the spawn's");
        assertTrue(ask().startsWith("HTTP/1.1 403"), "the spawn serves once the daemon before is gone");
        assertEquals(200, ControlClient.call(control, "GET", "/spawns/kiosk").status());
    }

    @Test
    void anUpgradeWhoseSpawnCannotBeRestoredLeavesTheRunningDaemonServing() throws Exception {
        Path token = dir.resolve("kiosk-token");
        handOver(open("kiosk", token));
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

        Predecessor.Failed failed = assertThrows(Predecessor.Failed.class, this::upgrade);

        assertTrue(failed.getMessage().startsWith("bad-handoff: door.tokenFile: " + token), failed.getMessage());
        assertFalse(running.upgraded().isDone());
        assertEquals(
                SpawnHandle.State.SERVING,
                running.relay().spawn("kiosk").orElseThrow().state());
        assertTrue(ask().startsWith("HTTP/1.1 403"));
        assertNotNull(before.poll(5, TimeUnit.SECONDS), "the running daemon decided the new connection");
        ControlClient.Answer shown = ControlClient.call(control, "GET", "/spawns/kiosk");
        assertEquals(200, shown.status());
        assertFalse(shown.json().get("socket").isNull(), "the running daemon answers");
    }

    /**
     * A successor killed after it renamed its socket over the control path, before it said so: the
     * running daemon sees the conversation end without the word, and takes its path back.
     */
    @Test
    void aSuccessorThatDiesAfterTakingThePathLeavesTheRunningDaemonServingAtItsPath() throws Exception {
        Path token = dir.resolve("kiosk-token");
        handOver(open("kiosk", token));
        Handoff.Key key = Handoff.Key.mint(new SecureRandom());
        int connection = Posix.connectUnix(control.toString(), 10_000);
        try {
            byte[] body = ("{\"key\": \"" + key.text() + "\"}").getBytes(StandardCharsets.US_ASCII);
            Posix.sendAll(
                    connection,
                    ("POST /upgrade HTTP/1.1\r\nHost: p\r\nContent-Length: " + body.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII),
                    0);
            Posix.sendAll(connection, body, 0);
            assertTrue(Frames.head(connection, 10_000).startsWith("HTTP/1.1 101 "));
            assertEquals("kiosk", Frames.read(connection, 10_000).get("spawn").asText());
            Receiver.receiveCarried(connection, key, 10_000).forEach(held -> Posix.closeQuietly(held.fd()));
            assertTrue(Frames.read(connection, 10_000).get("end").asBoolean());
            // What a dead successor leaves at the path: a socket nobody listens on.
            Path stale = dir.resolve("stale.sock");
            Posix.closeQuietly(Posix.listenUnix(stale.toString(), 1));
            Files.move(stale, control, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Posix.closeQuietly(connection);
        }

        ControlClient.Answer shown = awaitAnswer("/spawns/kiosk");
        assertEquals(200, shown.status(), shown.body());
        assertFalse(shown.json().get("socket").isNull(), "the running daemon answers at its path again");
        assertFalse(running.upgraded().isDone());
        assertEquals(
                SpawnHandle.State.SERVING,
                running.relay().spawn("kiosk").orElseThrow().state());
        assertTrue(ask().startsWith("HTTP/1.1 403"));
    }

    /** The answer at the control path, once something answers there, within 10 s. */
    private ControlClient.Answer awaitAnswer(String path) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return ControlClient.call(control, "GET", path);
            } catch (IOException refused) {
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    void anUpgradeRequestWithoutAKeyIs400AndAnotherMethodIs405() throws Exception {
        ControlClient.Answer bad = ControlClient.call(control, "POST", "/upgrade", "{}");
        ControlClient.Answer get = ControlClient.call(control, "GET", "/upgrade");

        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.body().contains("key: "), bad.body());
        assertEquals(405, get.status());
        assertEquals("POST", get.headers().get("allow"));
        assertFalse(running.upgraded().isDone());
    }

    /** A spawn whose entry never came holds the upgrade up for 10 s, then refuses it, naming the spawn. */
    @Test
    void aSpawnThatStillWaitsForItsHandOverRefusesTheUpgrade() throws Exception {
        open("late", dir.resolve("late-token"));

        Predecessor.Failed failed = assertThrows(Predecessor.Failed.class, this::upgrade);

        assertTrue(failed.getMessage().contains("409"), failed.getMessage());
        assertTrue(
                failed.getMessage().contains("spawn: late still waits for its entry's hand-over"), failed.getMessage());
        assertEquals(
                SpawnHandle.State.WAITING,
                running.relay().spawn("late").orElseThrow().state());
        assertEquals(200, ControlClient.call(control, "GET", "/spawns/late").status());
    }
}
