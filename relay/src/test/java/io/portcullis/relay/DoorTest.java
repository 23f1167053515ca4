package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RecordingOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Doors (SPEC R13) through a real relay to a loopback "gateway" that records what it received:
 * exact routes, raw target rules, the token in constant time, an allow-list of the client's
 * fields, the gateway's answer without the relay's own fields, and nothing refused ever arriving.
 */
class DoorTest {
    private static final int DOOR = 3001;
    private static final int GATEWAY_UID = 1000;
    private static final String ROUTES = """
            [{"method": "GET", "path": "/kiosk/state"}, {"method": "POST", "path": "/kiosk/say"}]""";

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private RecordingOrigin gateway;
    private Relay relay;
    private SpawnHandle spawn;
    private String token;

    @BeforeEach
    void start() throws Exception {
        gateway = RecordingOrigin.gateway("state");
        OwnerConfig owner = OwnerConfig.DEFAULTS.withGateway(GATEWAY_UID, gateway.port());
        HostConfig.Limits limits = new HostConfig.Limits(
                8192, Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofMinutes(15), 512, 16_384, 16);
        relay = Relay.builder(HostConfig.DEFAULTS.withOwner(owner).withLimits(limits))
                .directory(parent)
                .decisions(decisions::add)
                .ownerCheck(DoorTest::gatewayHoldsThePort)
                .start();
        spawn = open("studio", "listed");
        token = Files.readString(spawn.tokenFile().orElseThrow());
    }

    /**
     * The gateway here is a server in this JVM; the owner check says what the host's would for the
     * gateway's own process: {@code owner-gateway}, with the gateway's uid holding the port, which
     * is what a door asks (R13 {@code door-gateway}; DoorKindTest runs the real check).
     */
    private static CompletableFuture<OwnerAnswer> gatewayHoldsThePort(OwnerQuery query) {
        return CompletableFuture.completedFuture(OwnerAnswer.deny(
                OwnerCode.GATEWAY,
                "the gateway",
                new OwnerEvidence(
                        List.of(new OwnerEvidence.Listener(
                                "inet", "127.0.0.1", query.port(), GATEWAY_UID, 1, false, "")),
                        List.of(new OwnerEvidence.Process(
                                ProcessHandle.current().pid(), GATEWAY_UID, List.of("java"), "/", "java", 1)),
                        null)));
    }

    /** The first spawn gets the door port {@code DOOR}; later ones the next ports, all in this test's namespace. */
    private SpawnHandle open(String id, String network) throws Exception {
        int offset = relay.spawns().size();
        SpawnHandle opened = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "%s", "network": "%s", "proxyPort": %d, "door": {"port": %d, "routes": %s, "tokenFile": "%s"}}""".formatted(
                        id, network, 28180 + offset, DOOR + offset, ROUTES, parent.resolve(id + "-token"))));
        TestEntry.handOver(opened);
        return opened;
    }

    @AfterEach
    void closeAll() throws Exception {
        relay.close();
        gateway.close();
    }

    private String send(SpawnHandle to, String request) throws Exception {
        // Closed once read, as a client does: the relay lingers on a refusal until then (SPEC R17).
        try (SpawnClient client = SpawnClient.open(to.door().orElseThrow(), request)) {
            return new String(client.readToEnd(), StandardCharsets.ISO_8859_1);
        }
    }

    private Decision nextDecision() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line within 10 s");
        assertFalse(decision.toString().contains(token), "the token is in the decision line");
        return decision;
    }

    @Test
    void aRouteWithItsTokenReachesTheGatewayWithTheAllowedFieldsOnly() throws Exception {
        String answer = send(
                spawn,
                "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:3001\r\nX-Door-Token: " + token
                        + "\r\nX-Middleware-Subrequest: middleware\r\nX-Original-Method: DELETE\r\n"
                        + "X-Original-Host: admin.example\r\nX-Host: admin.example\r\nX-Envoy-Original-Path: /admin\r\n"
                        + "X-Zb3q-Anything: 1\r\nAccept: */*\r\nAccept-Encoding: identity\r\n\r\n");

        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Origin: yes\r\nConnection: close\r\n\r\nstate", answer);
        assertEquals(
                List.of("GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:" + gateway.port() + "\r\nX-Door-Token: " + token
                        + "\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n"),
                gateway.received());
        Decision decision = nextDecision();
        assertEquals("allow", Line.of(decision).verdict());
        assertEquals("door:3001 GET /kiosk/state", Line.of(decision).target());
        assertEquals("127.0.0.1:" + gateway.port(), Line.of(decision).dialed());
    }

    @Test
    void aBodyWithinTheLimitIsForwardedAndOneOverItIs413() throws Exception {
        String within = send(
                spawn,
                "POST /kiosk/say HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token
                        + "\r\nContent-Length: 16\r\n\r\n0123456789abcdef");
        String over = send(
                spawn,
                "POST /kiosk/say HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token
                        + "\r\nContent-Length: 17\r\n\r\n0123456789abcdefg");

        assertTrue(within.startsWith("HTTP/1.1 200 OK\r\n"), within);
        assertTrue(over.startsWith("HTTP/1.1 413 Content Too Large\r\n"), over);
        assertEquals(1, gateway.connections());
        assertTrue(gateway.received().getFirst().endsWith("\r\n\r\n0123456789abcdef"));
    }

    @ParameterizedTest(name = "{0} -> door-token")
    @ValueSource(strings = {"missing", "wrong", "upper-case", "twice", "another spawn's", "with a suffix"})
    void aMissingOrWrongTokenIsRefused(String shape) throws Exception {
        String other = Files.readString(open("other", "listed").tokenFile().orElseThrow());
        String field = switch (shape) {
            case "missing" -> "";
            case "wrong" -> "X-Door-Token: " + "0".repeat(64) + "\r\n";
            case "upper-case" -> "X-Door-Token: " + token.toUpperCase() + "\r\n";
            case "twice" -> "X-Door-Token: " + token + "\r\nX-Door-Token: " + token + "\r\n";
            case "another spawn's" -> "X-Door-Token: " + other + "\r\n";
            default -> "X-Door-Token: " + token + "0\r\n";
        };

        String answer = send(spawn, "GET /kiosk/state HTTP/1.1\r\nHost: d\r\n" + field + "\r\n");

        assertTrue(answer.startsWith("HTTP/1.1 403 Forbidden\r\n"), answer);
        assertTrue(answer.contains("\r\nPortcullis-Deny: door-token\r\n"), answer);
        assertFalse(answer.contains(token));
        assertEquals("door-token", Line.of(nextDecision()).code());
        assertEquals(0, gateway.connections());
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET  | /kiosk/%2e%2e/state             | door-target",
                "GET  | /kiosk/%73tate                  | door-target",
                "GET  | //kiosk/state                   | door-target",
                "GET  | /kiosk//state                   | door-target",
                "GET  | /kiosk/./state                  | door-target",
                "GET  | /./kiosk/state                  | door-target",
                "GET  | /kiosk/../kiosk/state           | door-target",
                "GET  | /kiosk/state/..                 | door-target",
                "GET  | /kiosk\\state                   | door-target",
                "GET  | /kiosk/state?x=1                | door-target",
                "GET  | /kiosk/state#top                | door-target",
                "GET  | /kiosk/st\u00e4te               | door-target",
                "GET  | /kiosk/\u00c0\u00ae/state       | door-target",
                "GET  | http://127.0.0.1:3001/kiosk/state | door-target",
                "GET  | *                               | door-target",
                "HEAD | /kiosk/state                    | door-route",
                "get  | /kiosk/state                    | door-route",
                "POST | /kiosk/state                    | door-route",
                "GET  | /kiosk/state/                   | door-route",
                "GET  | /Kiosk/state                    | door-route",
                "GET  | /kiosk                          | door-route",
            })
    void aTargetThatCouldBeRewrittenOrIsNoRouteIsRefusedEvenWithTheToken(String method, String target, String code)
            throws Exception {
        String answer =
                send(spawn, method + " " + target + " HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token + "\r\n\r\n");

        assertTrue(answer.contains("\r\nPortcullis-Deny: " + code + "\r\n"), answer);
        Decision decision = nextDecision();
        assertEquals(code, Line.of(decision).code());
        assertEquals("door:3001", Line.of(decision).target());
        assertEquals(0, gateway.connections());
    }

    @Test
    void anOverlongTargetIsRefused() throws Exception {
        String answer =
                send(spawn, "GET /" + "a".repeat(2000) + " HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token + "\r\n\r\n");

        assertTrue(answer.contains("\r\nPortcullis-Deny: door-target\r\n"), answer);
        assertEquals(0, gateway.connections());
    }

    @Test
    void aSmugglingShapeIs400EvenOnARouteWithTheToken() throws Exception {
        String answer = send(
                spawn,
                "POST /kiosk/say HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token
                        + "\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /kiosk/state HTTP/1.1\r\n\r\n");

        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
        assertEquals(0, gateway.connections());
    }

    @Test
    void aSpawnWithNetworkNoneHasNoDoor() throws Exception {
        SpawnHandle none = open("sealed", "none");
        String sealed = Files.readString(none.tokenFile().orElseThrow());

        String answer = send(none, "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + sealed + "\r\n\r\n");

        assertTrue(answer.contains("\r\nPortcullis-Deny: mode-none\r\n"), answer);
        assertEquals(0, gateway.connections());
    }
}
