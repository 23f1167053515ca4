package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that ends its connection before its request head is complete frees its budget place at
 * once (issue 26 item 7, SPEC R16): connect-and-close used to hold a place until the header timeout
 * ({@code header-timeout}), so a few hundred of them filled a spawn's budget and real CONNECTs got
 * {@code 503 limit-spawn} for ten seconds.
 */
@Timeout(60)
class EarlyCloseTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold it. */
    private static final int PROXY = 28082;

    private static final int DOOR = 3002;
    private static final int BUDGET = 8;
    private static final int BATCHES = 20;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private LoopbackOrigin origin;
    private Relay relay;

    @AfterEach
    void closeAll() throws Exception {
        relay.close();
        origin.close();
    }

    @Test
    void connectAndCloseFreesItsPlaceAtOnceAndARealConnectStillGetsThrough() throws Exception {
        origin = LoopbackOrigin.echo();
        // The header timeout is far longer than the test waits: a place freed by it would come too late.
        HostConfig.Limits limits = new HostConfig.Limits(
                8192, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofMinutes(15), BUDGET, 100, 1 << 20);
        relay = Relay.builder(HostConfig.DEFAULTS.withLimits(limits))
                .directory(parent)
                .decisions(decisions::add)
                .judge((policy, request) -> CompletableFuture.completedFuture(
                        request.kind() == Request.Kind.CONNECT
                                        && request.target().equals("origin.test:443")
                                ? new Verdict.Allow(
                                        List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")
                                : new Verdict.Deny(DenyCode.NOT_LISTED, "test")))
                .start();
        SpawnHandle spawn = relay.open(
                SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "proxyPort": %d, "door": {"port": %d, "routes": [], "tokenFile": "%s"}}""".formatted(PROXY, DOOR, parent.resolve("door-token"))));
        TestEntry.handOver(spawn);

        // Batches of a whole budget: each place must be free again before the next batch needs it.
        Map<String, Integer> codes = new TreeMap<>();
        for (int batch = 0; batch < BATCHES; batch++) {
            List<SpawnClient> clients = new ArrayList<>();
            for (int i = 0; i < BUDGET; i++) {
                // Nothing, the start of a request line, or a head cut short; then the client closes.
                String sent = List.of("", "CONNECT origin.test:443 HTTP/1.1\r\n", "GET /kiosk")
                        .get(i % 3);
                clients.add(SpawnClient.open(i % 2 == 0 ? PROXY : DOOR, sent));
            }
            for (SpawnClient client : clients) {
                client.close();
            }
            for (int i = 0; i < BUDGET; i++) {
                Decision decision = decisions.poll(5, TimeUnit.SECONDS);
                assertNotNull(decision, "batch " + batch + ": " + i + " of " + BUDGET + " lines within 5 s: " + codes);
                codes.merge(Line.of(decision).code(), 1, Integer::sum);
            }
        }
        assertEquals(Map.of("client-closed", BATCHES * BUDGET), codes);
        assertEquals(0, spawn.openConnections());
        List<SpawnClient> tunnels = new ArrayList<>();
        try {
            for (int i = 0; i < BUDGET; i++) {
                SpawnClient tunnel =
                        SpawnClient.open(PROXY, "CONNECT origin.test:443 HTTP/1.1\r\nHost: origin.test:443\r\n\r\n");
                tunnels.add(tunnel);
                assertEquals("HTTP/1.1 200 Connection established\r\n\r\n", tunnel.readHead());
            }
        } finally {
            for (SpawnClient tunnel : tunnels) {
                tunnel.close();
            }
        }
    }
}
