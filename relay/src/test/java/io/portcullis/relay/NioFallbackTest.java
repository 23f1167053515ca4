package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.portcullis.entry.wire.Preamble;
import io.portcullis.entry.wire.Preamble.Kind;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.tunnel.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
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
 * The NIO transport, for a machine where the epoll library does not load. Netty 4.2.18's NIO
 * domain socket cannot half-close (its config is not a SocketChannelConfig), so on NIO a client's
 * end of input ends the whole tunnel; that is not asserted here.
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

    @Test
    void aTunnelWorks() throws Exception {
        try (LoopbackOrigin origin = LoopbackOrigin.echo();
                Relay relay = relay(origin)) {
            SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("s.json", "{\"id\": \"nio\", \"hosts\": []}"));

            try (SpawnClient client = SpawnClient.open(
                    spawn.socket(), Kind.PROXY, spawn.proxyPort(), "CONNECT origin.test:443 HTTP/1.1\r\n\r\n")) {
                assertEquals("HTTP/1.1 200 Connection established\r\n\r\n", client.readHead());
                client.write("nio");
                assertEquals("nio", new String(client.readExactly(3), StandardCharsets.US_ASCII));
            }
            assertEquals("allow", next().verdict());
            assertEquals("nio", relay.transport());
        }
    }

    /** NIO cannot read SO_PEERCRED, so a spawn that names its peer uid refuses every connection. */
    @Test
    void aSpawnWithAPeerUidRefusesEveryConnection() throws Exception {
        try (LoopbackOrigin origin = LoopbackOrigin.echo();
                Relay relay = relay(origin)) {
            // Even the relay's own uid (root here) is refused: the peer cannot be read.
            SpawnHandle spawn =
                    relay.open(SpawnPolicyJson.parse("s.json", "{\"id\": \"nio\", \"hosts\": [], \"peerUid\": 0}"));

            try (SpawnClient client = SpawnClient.connect(spawn.socket())) {
                try {
                    client.write(new Preamble(Kind.PROXY, spawn.proxyPort()).encode());
                } catch (IOException closedAlready) {
                    // The relay may close before this write.
                }
                assertEquals(0, client.readToEnd().length);
            }
            assertEquals("peer-uid", next().code());
        }
    }

    private Decision next() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line within 10 s");
        return decision;
    }
}
