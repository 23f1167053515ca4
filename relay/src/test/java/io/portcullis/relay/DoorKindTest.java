package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.door.DoorKind;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.testing.GatewayProcess;
import io.portcullis.relay.testing.KindServer;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RecordingOrigin;
import io.portcullis.relay.transport.Transport;
import io.portcullis.relay.tunnel.Dialer;
import io.portcullis.relay.tunnel.Tunnels;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The door kind's real pipeline (SPEC R13, issue 9 item 9) against a real gateway on loopback, a
 * process under uid 65534 that answers with the request it got; the host's real owner check says
 * who holds the gateway's port. Tests run as root, so uid 0 is this process's own.
 */
class DoorKindTest {
    private static final int NOBODY = 65534;
    private static final String ROUTES = """
            [{"method": "GET", "path": "/kiosk/state"}]""";

    @TempDir
    Path dir;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private String token;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }

    /** A door whose gateway is uid {@code gatewayUid} on {@code gatewayPort}. */
    private KindServer door(int gatewayUid, int gatewayPort) throws Exception {
        SpawnPolicy policy = SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "door": {"port": 3001, "routes": %s, "tokenFile": "%s"}}""".formatted(ROUTES, dir.resolve("token")));
        DoorToken minted = DoorToken.mint(dir.resolve("token"), OptionalInt.empty(), new SecureRandom());
        token = Files.readString(minted.file());
        OwnerConfig owner = OwnerConfig.DEFAULTS.withGateway(gatewayUid, gatewayPort);
        ManagedOwnerCheck check = closing(OwnerChecks.system(owner, WallProcesses.withSelf()));
        DoorKind kind = new DoorKind(
                8192,
                10_000,
                owner,
                check,
                new Tunnels(new Dialer(Transport.nio(), 2000), 60_000),
                new Exchange.Limits(1024, 1 << 20, 10_000));
        return closing(new KindServer(() -> kind.handler(policy, minted), decisions::add));
    }

    private String request(String fields) {
        return "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:3001\r\nX-Door-Token: " + token + "\r\n" + fields + "\r\n";
    }

    private String code() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        return decision == null
                ? "no decision"
                : Line.of(decision).verdict() + " " + Line.of(decision).code();
    }

    @Test
    void theGatewaySeesOnlyTheAllowedFieldsAndItsOwnHost() throws Exception {
        int port = closing(GatewayProcess.start(NOBODY)).port();
        KindServer door = door(NOBODY, port);

        String answer = door.exchange(
                request("X-HTTP-Method-Override: DELETE\r\nX-HTTP-Method: DELETE\r\nX-Method-Override: DELETE\r\n"
                        + "X-Original-URL: /admin\r\nX-Rewrite-URL: /admin\r\nForwarded: for=127.0.0.1\r\n"
                        + "X-Forwarded-For: 127.0.0.1\r\nX-Forwarded-Host: localhost\r\nX-Real-IP: 127.0.0.1\r\n"
                        + "X_Real_IP: 127.0.0.1\r\nX-Middleware-Subrequest: middleware\r\nX-Original-Method: DELETE\r\n"
                        + "X-Original-Host: admin.example\r\nX-Host: admin.example\r\n"
                        + "X-Envoy-Original-Path: /admin\r\nX-Kq7z: 1\r\nCookie: a=b\r\nAccept: */*\r\n"
                        + "Accept-Language: de\r\n"),
                10_000);

        String received = "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Door-Token: " + token
                + "\r\nAccept: */*\r\nAccept-Language: de\r\nConnection: close\r\n\r\n";
        assertEquals(
                "HTTP/1.1 200 OK\r\nContent-Length: " + received.length() + "\r\nConnection: close\r\n\r\n" + received,
                answer);
        assertTrue(code().startsWith("allow"));
    }

    @Test
    void http09IsAnswered400AtOnce() throws Exception {
        RecordingOrigin gateway = closing(RecordingOrigin.ok("state"));
        KindServer door = door(0, gateway.port());

        long start = System.nanoTime();
        String answer = door.exchange("GET /kiosk/state\r\n", 1000);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
        assertTrue(millis < 1000, millis + " ms");
        assertEquals("deny bad-request", code());
        assertEquals(0, gateway.connections());
    }

    @Test
    void aGatewayPortHeldByAnotherUidIsDoorGateway() throws Exception {
        GatewayProcess gateway = closing(GatewayProcess.start(NOBODY));
        KindServer door = door(0, gateway.port());

        String answer = door.exchange(request(""), 10_000);

        assertTrue(answer.startsWith("HTTP/1.1 403 Forbidden\r\n"), answer);
        assertTrue(answer.contains("\r\nPortcullis-Deny: door-gateway\r\n"), answer);
        assertEquals("deny door-gateway", code());
        assertEquals(0, gateway.connections());
    }

    @Test
    void aGatewayPortThatNobodyHoldsIsDoorGateway() throws Exception {
        KindServer door = door(0, freePort());

        String answer = door.exchange(request(""), 10_000);

        assertTrue(answer.contains("\r\nPortcullis-Deny: door-gateway\r\n"), answer);
        assertEquals("deny door-gateway", code());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
