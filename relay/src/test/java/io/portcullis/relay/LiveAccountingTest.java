package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.judge.PolicyJudge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 #7: an open tunnel shows what it moved, and its decision is in the log while it is open.
 * The relay judges with the policy's own judge over a resolver and an owner check that each take a
 * known time, so the decision line's timings can be checked; the origin echoes on loopback.
 */
@Timeout(30)
class LiveAccountingTest {
    /** Below the ephemeral range, where no connection of the run can hold it. */
    private static final int PROXY = 28180;

    private static final int BYTES = 100 * 1024;
    private static final long DNS_MILLIS = 40;
    private static final long OWNER_MILLIS = 25;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> opened = new LinkedBlockingQueue<>();
    private final BlockingQueue<Decision> ended = new LinkedBlockingQueue<>();
    private Relay relay;
    private LoopbackOrigin origin;

    @AfterEach
    void close() throws Exception {
        if (relay != null) {
            relay.close();
        }
        if (origin != null) {
            origin.close();
        }
    }

    private SpawnHandle open() throws Exception {
        origin = LoopbackOrigin.echo(InetAddress.ofLiteral("127.0.0.1"));
        Executor later = CompletableFuture.delayedExecutor(DNS_MILLIS, TimeUnit.MILLISECONDS);
        Resolver resolver = name -> CompletableFuture.supplyAsync(
                () -> Resolution.resolved(List.of(InetAddress.ofLiteral("127.0.0.1"))), later);
        OwnerCheck owner = query -> CompletableFuture.supplyAsync(
                () -> OwnerAnswer.allow("the test's own echo", OwnerEvidence.NONE),
                CompletableFuture.delayedExecutor(OWNER_MILLIS, TimeUnit.MILLISECONDS));
        OwnAddresses own = new OwnAddresses(Set.of(InetAddress.ofLiteral("127.0.0.1")));
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .judge(new PolicyJudge(new Rules(HostConfig.DEFAULTS), resolver, () -> own, owner))
                .decisions(new DecisionSink() {
                    @Override
                    public void accept(Decision decision) {
                        ended.add(decision);
                    }

                    @Override
                    public void opened(Decision decision) {
                        opened.add(decision);
                    }
                })
                .start();
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "proxyPort": %d, "hosts": [{"target": "origin.test:%d", "scheme": "tcp"}]}""".formatted(PROXY, origin.port())));
        TestEntry.handOver(spawn);
        return spawn;
    }

    private String metric(String series) {
        return relay.metricsText()
                .lines()
                .filter(line -> line.startsWith(series + " "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(series + " not in the metrics"));
    }

    @Test
    void aTunnelThatMovedOneHundredKilobytesShowsThemBeforeItCloses() throws Exception {
        SpawnHandle spawn = open();
        byte[] sent = new byte[BYTES];
        new Random(25).nextBytes(sent);

        try (SpawnClient client = SpawnClient.open(
                PROXY, "CONNECT origin.test:" + origin.port() + " HTTP/1.1\r\nHost: origin.test\r\n\r\n")) {
            assertEquals("HTTP/1.1 200 Connection established\r\n\r\n", client.readHead());
            client.write(sent);
            assertArrayEquals(sent, client.readExactly(BYTES));

            // Each byte was counted when it was read, before it was passed on: all of them by now.
            assertEquals(BYTES, spawn.traffic().bytesUp());
            assertEquals(BYTES, spawn.traffic().bytesDown());
            assertEquals(1, spawn.traffic().connections());
            assertEquals(1, spawn.openConnections());
            assertEquals(
                    "portcullis_bytes_total{direction=\"up\"} " + (double) BYTES,
                    metric("portcullis_bytes_total{direction=\"up\"}"));
            assertEquals(
                    "portcullis_bytes_total{direction=\"down\"} " + (double) BYTES,
                    metric("portcullis_bytes_total{direction=\"down\"}"));
            assertEquals("portcullis_connections_accepted_total 1.0", metric("portcullis_connections_accepted_total"));
            assertEquals(
                    "portcullis_open_connections{spawn=\"studio\"} 1.0",
                    metric("portcullis_open_connections{spawn=\"studio\"}"));
            assertNull(ended.poll(), "the tunnel is still open");
        }

        Decision end = ended.poll(10, TimeUnit.SECONDS);
        assertNotNull(end, "no record when the tunnel closed");
        assertEquals(List.of((long) BYTES, (long) BYTES), List.of(end.bytesUp(), end.bytesDown()));
        assertTrue(end.open(), "its decision line was written when it opened");
        assertEquals(
                "portcullis_bytes_total{direction=\"up\"} " + (double) BYTES,
                metric("portcullis_bytes_total{direction=\"up\"}"),
                "the end adds nothing more");
    }

    @Test
    void theDecisionIsWrittenWhenTheTargetAnswersWithItsReasonAndTimings() throws Exception {
        open();

        try (SpawnClient client = SpawnClient.open(
                PROXY, "CONNECT origin.test:" + origin.port() + " HTTP/1.1\r\nHost: origin.test\r\n\r\n")) {
            assertEquals("HTTP/1.1 200 Connection established\r\n\r\n", client.readHead());

            Decision decision = opened.poll(10, TimeUnit.SECONDS);
            assertNotNull(decision, "no decision while the tunnel is open");
            assertTrue(decision.open());
            assertEquals("allow", decision.verdict().toString());
            assertEquals("listed tcp entry", decision.reason());
            assertEquals(0, decision.bytesUp());
            Decision.Timings timings = decision.timings();
            assertTrue(timings.dnsMicros().orElseThrow() >= DNS_MILLIS * 1000, timings.toString());
            assertTrue(timings.ownerMicros().orElseThrow() >= OWNER_MILLIS * 1000, timings.toString());
            assertTrue(timings.connectMicros().isPresent(), timings.toString());
            assertTrue(
                    timings.dnsMicros().getAsLong() + timings.ownerMicros().getAsLong()
                            <= decision.durationMillis() * 1000 + 1000,
                    decision.toString());
            assertEquals(1, decision.revision());
            assertNull(ended.poll());
        }
        Decision end = ended.poll(10, TimeUnit.SECONDS);
        assertNotNull(end);
        assertEquals("listed tcp entry", end.reason());
    }

    @Test
    void aRefusalIsWrittenOnceWhenItEndsWithItsReason() throws Exception {
        open();

        try (SpawnClient client =
                SpawnClient.open(PROXY, "CONNECT elsewhere.test:443 HTTP/1.1\r\nHost: elsewhere.test\r\n\r\n")) {
            assertTrue(client.readHead().startsWith("HTTP/1.1 403 "));
        }

        Decision decision = ended.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision);
        assertEquals("deny", decision.verdict().toString());
        assertEquals("not-listed", decision.code().orElseThrow().code());
        assertTrue(decision.reason().contains("elsewhere.test"), decision.reason());
        assertEquals(Decision.Timings.NONE, decision.timings(), "refused by the rules alone: nothing asked");
        assertTrue(!decision.open());
        assertNull(opened.poll(), "a refusal is never written open");
    }
}
