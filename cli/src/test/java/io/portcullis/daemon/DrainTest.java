package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Draining (SIGTERM, SPEC R43): new connections refused at once, open tunnels going on until they
 * end or the drain does; the relay takes no new spawn and says it is not ready.
 */
@Timeout(60)
class DrainTest {
    private static final int FORWARD = 5000;

    @TempDir
    Path parent;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private LoopbackOrigin origin;
    private Relay relay;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
        relay.close();
    }

    /** A relay whose spawn forwards 127.0.0.1:5000 to an echo origin, handed over by the test. */
    private SpawnHandle open() throws Exception {
        origin = closing(LoopbackOrigin.echo());
        start();
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "draining", "hosts": [{"target": "127.0.0.1:5000", "scheme": "tcp"}]}"""));
        TestEntry.handOver(spawn);
        return spawn;
    }

    private void start() throws IOException {
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .decisions(decision -> {})
                .judge(this::forwardsToOrigin)
                .start();
    }

    private CompletableFuture<Verdict> forwardsToOrigin(SpawnPolicy spawn, Request request) {
        return CompletableFuture.completedFuture(
                request.kind() == Request.Kind.FORWARD
                        ? new Verdict.Allow(
                                List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")
                        : new Verdict.Deny(DenyCode.NOT_LISTED, "test"));
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }

    private static void assertEchoes(SpawnClient client, String text) throws IOException {
        client.write(text);
        assertArrayEquals(text.getBytes(StandardCharsets.ISO_8859_1), client.readExactly(text.length()));
    }

    private CompletableFuture<Integer> drainInBackground(Duration grace) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return relay.drain(grace);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Waits until a new connection to the forward is refused, as draining makes it. */
    private static void awaitRefused() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try {
                SpawnClient.connect(FORWARD).close();
            } catch (ConnectException refused) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("a new connection was still accepted 10 s into the drain");
    }

    @Test
    void anOpenTunnelCarriesOnWhileNewConnectionsAreRefusedAndTheDrainEndsWithIt() throws Exception {
        SpawnHandle spawn = open();
        SpawnClient tunnel = closing(SpawnClient.connect(FORWARD));
        assertEchoes(tunnel, "before");

        CompletableFuture<Integer> drained = drainInBackground(Duration.ofSeconds(30));
        awaitRefused();

        assertFalse(relay.accepting());
        assertTrue(relay.draining());
        assertEchoes(tunnel, "during the drain");
        assertFalse(drained.isDone(), "the drain ended with a tunnel open");
        assertThrows(
                IllegalStateException.class, () -> relay.open(SpawnPolicyJson.parse("s.json", "{\"id\": \"new\"}")));
        long closedAt = System.nanoTime();
        tunnel.close();

        assertEquals(0, drained.get(10, TimeUnit.SECONDS), "connections open when the drain ended");
        assertTrue(
                System.nanoTime() - closedAt < TimeUnit.SECONDS.toNanos(10), "the drain waited past the tunnel's end");
        assertFalse(spawn.isClosed(), "draining leaves closing to Relay.close");
    }

    @Test
    void aTunnelStillOpenWhenTheDrainEndsIsClosedWithTheRelay() throws Exception {
        open();
        SpawnClient tunnel = closing(SpawnClient.connect(FORWARD));
        assertEchoes(tunnel, "before");

        long start = System.nanoTime();
        assertEquals(1, relay.drain(Duration.ofMillis(700)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(700), "the drain ended early");
        relay.close();

        assertArrayEquals(new byte[0], tunnel.readToEnd(), "the tunnel ends when the relay closes");
    }

    @Test
    void aDrainingDaemonAnswersNotReadyAndRefusesNewSpawns() throws Exception {
        // Nothing handed over: the daemon refuses control peers in a spawn's namespace, this test's own.
        start();
        Path control = parent.resolve("control.sock");
        Daemon daemon = Daemon.start(relay, control, () -> HostConfig.DEFAULTS);
        closing(daemon);
        assertEquals(200, ControlClient.call(control, "GET", "/readyz").status());

        assertEquals(0, relay.drain(Duration.ofSeconds(5)), "nothing was open");

        ControlClient.Answer ready = ControlClient.call(control, "GET", "/readyz");
        assertEquals(503, ready.status());
        assertEquals("draining\n", ready.body());
        assertEquals(200, ControlClient.call(control, "GET", "/healthz").status());
        ControlClient.Answer spawn = ControlClient.call(control, "POST", "/spawns", "{\"id\": \"late\"}");
        assertEquals(503, spawn.status(), spawn.body());
        assertTrue(spawn.body().contains("draining"), spawn.body());
        assertTrue(Files.exists(control), "the control socket answers until the daemon closes");
    }
}
