package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff.Kind;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NIO transport, for a machine where the epoll library does not load.
 */
@Timeout(30)
class NioFallbackTest {
    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();

    private Relay relay(LoopbackOrigin origin) throws IOException {
        return Relay.builder(HostConfig.DEFAULTS)
                .transport(Transport.nio())
                .directory(parent)
                .decisions(decisions::add)
                .judge((spawn, request) -> CompletableFuture.completedFuture(new Verdict.Allow(
                        List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")))
                .start();
    }

    /**
     * NIO cannot adopt a socket by its descriptor, so it serves no spawn: the hand-over is refused
     * with a reason the entry prints, and the relay's other work (deciding, dialing) stays.
     */
    @Test
    void aHandOverIsRefusedWithTheReason() throws Exception {
        try (LoopbackOrigin origin = LoopbackOrigin.echo();
                Relay relay = relay(origin)) {
            SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("s.json", "{\"id\": \"nio\", \"hosts\": []}"));

            String answer = TestEntry.send(spawn, List.of(TestEntry.socket(Kind.PROXY, spawn.proxyPort())));

            assertEquals(
                    "refused bad-handoff: the relay's nio transport cannot read a hand-over (expected: epoll)", answer);
            assertEquals("bad-handoff", Line.of(next()).code());
            assertEquals("nio", relay.transport());
        }
    }

    /** NIO cannot read SO_PEERCRED, so a spawn that names its peer uid refuses every hand-over unanswered. */
    @Test
    void aSpawnWithAPeerUidRefusesEveryHandOver() throws Exception {
        try (LoopbackOrigin origin = LoopbackOrigin.echo();
                Relay relay = relay(origin)) {
            // Even the relay's own uid (root here) is refused: the peer cannot be read.
            SpawnHandle spawn =
                    relay.open(SpawnPolicyJson.parse("s.json", "{\"id\": \"nio\", \"hosts\": [], \"peerUid\": 0}"));

            assertThrows(IOException.class, () -> TestEntry.handOver(spawn));
            assertEquals("peer-uid", Line.of(next()).code());
        }
    }

    private Decision next() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line within 10 s");
        return decision;
    }
}
