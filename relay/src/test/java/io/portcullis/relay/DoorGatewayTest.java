package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.GatewayProcess;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A relay's doors ask the host's real owner check who holds the gateway's port before they dial it
 * (SPEC R13 {@code door-gateway}), whether the relay runs the policy's judge or was given a
 * judge. The gateway is a real process under its own uid on 127.0.0.1 of this test's namespace.
 * Regression: the relay's generation built its door kind without the owner check, so a door
 * request went to whatever held the gateway's port, and to a closed port as {@code connect-failed}.
 */
class DoorGatewayTest {
    private static final int GATEWAY_UID = 1000;
    private static final int OTHER_UID = 65534;
    private static final int DOOR = 3001;

    /** How the relay is built: as {@code portcullis relay} builds it, or given a judge by an embedder. */
    enum Build {
        DECIDER,
        GIVEN_JUDGE
    }

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();

    /** A door request's answer, its decision line and the token it carried. */
    private record Outcome(String answer, Decision decision, String token) {}

    /**
     * Sends one door request with its token through a relay whose gateway is {@code GATEWAY_UID}
     * on {@code gatewayPort}, with the host's own owner check.
     */
    private Outcome doorRequest(Build build, int gatewayPort) throws Exception {
        OwnerConfig owner = OwnerConfig.DEFAULTS.withGateway(GATEWAY_UID, gatewayPort);
        Relay.Builder builder = Relay.builder(HostConfig.DEFAULTS.withOwner(owner))
                .directory(parent)
                .decisions(decisions::add);
        if (build == Build.GIVEN_JUDGE) {
            builder.judge((spawn, request) ->
                    CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test")));
        }
        try (Relay relay = builder.start()) {
            SpawnHandle spawn =
                    relay.open(SpawnPolicyJson.parse("spawn.json", """
                    {"id": "studio", "door": {"port": %d, "routes": [{"method": "GET", "path": "/kiosk/state"}],
                     "tokenFile": "%s"}}""".formatted(DOOR, parent.resolve("token"))));
            TestEntry.handOver(spawn);
            String token = Files.readString(spawn.tokenFile().orElseThrow());
            String answer;
            // Closed once read, as a client does: the relay lingers on a refusal until then (SPEC R17).
            try (SpawnClient client = SpawnClient.open(
                    DOOR, "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:3001\r\nX-Door-Token: " + token + "\r\n\r\n")) {
                answer = new String(client.readToEnd(), StandardCharsets.ISO_8859_1);
            }
            Decision decision = decisions.poll(10, TimeUnit.SECONDS);
            assertNotNull(decision, "no decision line within 10 s");
            return new Outcome(answer, decision, token);
        }
    }

    private static void assertRefusedDoorGateway(String answer) {
        assertTrue(answer.startsWith("HTTP/1.1 403 Forbidden\r\n"), answer);
        assertTrue(answer.contains("\r\nPortcullis-Deny: door-gateway\r\n"), answer);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Build.class)
    void aGatewayPortHeldByAnotherUidIsDoorGatewayAndNeverReached(Build build) throws Exception {
        try (GatewayProcess squatter = GatewayProcess.start(OTHER_UID)) {
            Outcome outcome = doorRequest(build, squatter.port());

            assertRefusedDoorGateway(outcome.answer());
            Decision decision = outcome.decision();
            assertEquals("door", decision.kind());
            assertEquals(
                    "deny door-gateway",
                    Line.of(decision).verdict() + " " + Line.of(decision).code());
            assertNull(Line.of(decision).dialed());
            assertEquals(
                    List.of(OTHER_UID),
                    Line.of(decision).owner().listeners().stream()
                            .map(OwnerEvidence.Listener::uid)
                            .toList());
            assertEquals(0, squatter.connections());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Build.class)
    void aGatewayPortThatNothingHoldsIsDoorGateway(Build build) throws Exception {
        Outcome outcome = doorRequest(build, closedPort());

        assertRefusedDoorGateway(outcome.answer());
        assertEquals(
                "deny door-gateway",
                Line.of(outcome.decision()).verdict() + " "
                        + Line.of(outcome.decision()).code());
        assertNull(Line.of(outcome.decision()).dialed());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Build.class)
    void theGatewaysOwnUidIsReached(Build build) throws Exception {
        try (GatewayProcess gateway = GatewayProcess.start(GATEWAY_UID)) {
            Outcome outcome = doorRequest(build, gateway.port());

            String received = "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:" + gateway.port() + "\r\nX-Door-Token: "
                    + outcome.token() + "\r\nConnection: close\r\n\r\n";
            assertEquals(
                    "HTTP/1.1 200 OK\r\nContent-Length: " + received.length() + "\r\nConnection: close\r\n\r\n"
                            + received,
                    outcome.answer());
            assertEquals("allow", Line.of(outcome.decision()).verdict());
            assertNull(Line.of(outcome.decision()).code());
            assertEquals(
                    "127.0.0.1:" + gateway.port(), Line.of(outcome.decision()).dialed());
        }
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
