package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Carry;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.RemoteEntry;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Handoff.Kind;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SPEC R44: a relay serves a spawn again on the listening sockets another relay carried to it, with
 * no spawn socket, checked as a hand-over is (R4): a restored spawn serves a CONNECT in its own
 * network namespace, keeps the door token its program read, and a set of sockets that is not the
 * spawn's is refused whole with {@code bad-handoff}, every descriptor closed. Real namespaces, real
 * SCM_RIGHTS between the two relays' descriptors.
 */
@Timeout(60)
class RestoreTest {
    private static final int PROXY = 39480;
    private static final int FORWARD = 5400;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> before = new LinkedBlockingQueue<>();
    private final BlockingQueue<Decision> after = new LinkedBlockingQueue<>();
    private LoopbackOrigin origin;
    private Relay first;
    private Relay second;

    @BeforeEach
    void start() throws Exception {
        origin = LoopbackOrigin.echo();
        first = relay(before);
        second = relay(after);
    }

    private Relay relay(BlockingQueue<Decision> decisions) throws IOException {
        return Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .decisions(decisions::add)
                .judge((policy, request) -> CompletableFuture.completedFuture(new Verdict.Allow(
                        List.of(origin.address()), List.of(origin.address().getAddress()), "test")))
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        first.close();
        second.close();
        origin.close();
    }

    private static SpawnPolicy policy(String json) throws Exception {
        return SpawnPolicyJson.parse("spawn.json", json);
    }

    private static final String STUDIO = """
            {"id": "studio", "proxyPort": %d, "hosts": []}""".formatted(PROXY);

    @Test
    void aRestoredSpawnServesAConnectInItsOwnNamespace() throws Exception {
        SpawnPolicy policy = policy(STUDIO);
        try (RemoteEntry entry = RemoteEntry.start()) {
            SpawnHandle spawn = first.open(policy);
            entry.handOver(spawn.socket(), spawn.handoffKey(), PROXY, List.of());
            spawn.handedOver().get(5, TimeUnit.SECONDS);
            Receiver.Carried carried = spawn.carried().orElseThrow();

            SpawnHandle restored = second.restore(policy, Carry.copy(carried));
            spawn.letGo();

            assertEquals(SpawnHandle.State.SERVING, restored.state());
            assertTrue(restored.restored());
            assertTrue(restored.handedOver().isDone());
            assertEquals(spawn.namespace(), restored.namespace());
            assertThrows(IllegalStateException.class, restored::socket, "a restored spawn has no spawn socket");
            assertEquals(carried.origin(), restored.carried().orElseThrow().origin());
            try (SpawnClient client = entry.connect(PROXY)) {
                client.write("CONNECT " + origin.hostPort() + " HTTP/1.1\r\nHost: " + origin.hostPort() + "\r\n\r\n");
                assertTrue(client.readHead().startsWith("HTTP/1.1 200"), "the restored spawn tunnels");
                client.write("ping");
                assertArrayEquals("ping".getBytes(StandardCharsets.US_ASCII), client.readExactly(4));
            }
            Decision decision = after.poll(10, TimeUnit.SECONDS);
            assertNotNull(decision, "no decision line from the relay that restored the spawn");
            assertEquals("allow", Line.of(decision).verdict());
            assertTrue(before.isEmpty(), "the relay that let the spawn go decided nothing");
        }
    }

    /** The program read its door token from the file: the restored spawn checks that token, not a new one. */
    @Test
    void aRestoredSpawnKeepsItsDoorTokenFileAndChecksTheSameToken() throws Exception {
        Path tokenFile = parent.resolve("kiosk-token");
        SpawnPolicy policy = policy("""
                {"id": "kiosk", "proxyPort": %d, "door": {"port": 3401, "routes": [{"method": "GET", "path": "/kiosk/state"}], "tokenFile": "%s"}}""".formatted(PROXY, tokenFile));
        SpawnHandle spawn = first.open(policy);
        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);
        String token = Files.readString(tokenFile);

        SpawnHandle restored = second.restore(policy, Carry.copy(spawn.carried().orElseThrow()));
        spawn.letGo();

        assertEquals(token, Files.readString(tokenFile), "the token file is the same");
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
        assertNotEquals("door-token", doorCode(token), "the program's token opens the restored door");
        assertEquals("door-token", doorCode("0".repeat(64)));
        restored.close();
        assertFalse(Files.exists(tokenFile), "the relay that serves the spawn removes its token when it closes");
    }

    private String doorCode(String token) throws Exception {
        try (SpawnClient client =
                SpawnClient.open(3401, "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token + "\r\n\r\n")) {
            client.readToEnd();
        }
        Decision decision = after.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line for the door request");
        return Line.of(decision).code();
    }

    /** How the carried sockets are not the spawn's, and what the refusal must say. */
    enum Bad {
        BOUND_ELSEWHERE("(expected: what its entry says, 127.0.0.1:39480)"),
        NOT_LISTENING("not listening (expected: a listening socket)"),
        UDP("(expected: TCP)"),
        NOT_CALLED_FOR("is not one this spawn's policy calls for"),
        MISSING("the proxy 127.0.0.1:39480 socket is missing"),
        TWICE("is there twice"),
        ANOTHER_NAMESPACE("made in another network namespace than the spawn's");

        final String reason;

        Bad(String reason) {
            this.reason = reason;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Bad.class)
    void socketsThatAreNotTheSpawnsAreRefusedWholeAndClosed(Bad bad) throws Exception {
        SpawnPolicy policy = policy("""
                {"id": "studio", "proxyPort": %d, "hosts": [{"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(PROXY, FORWARD));
        Handoff.Socket proxy = TestEntry.socket(Kind.PROXY, PROXY);
        Handoff.Socket forward = TestEntry.socket(Kind.FORWARD, FORWARD);
        List<Receiver.Held> sockets = new ArrayList<>();
        try (RemoteEntry elsewhere = RemoteEntry.start()) {
            switch (bad) {
                case BOUND_ELSEWHERE -> sockets.add(held(proxy, listen(PROXY + 7)));
                case NOT_LISTENING -> sockets.add(held(proxy, Posix.bindTcp(proxy.address())));
                case UDP -> sockets.add(held(proxy, Posix.bindUdp(proxy.address())));
                case NOT_CALLED_FOR -> {
                    sockets.add(held(proxy, listen(PROXY)));
                    sockets.add(held(TestEntry.socket(Kind.FORWARD, FORWARD + 1), listen(FORWARD + 1)));
                }
                case MISSING -> sockets.add(held(forward, listen(FORWARD)));
                case TWICE -> {
                    int fd = listen(PROXY);
                    sockets.add(held(proxy, fd));
                    sockets.add(held(proxy, fd));
                }
                case ANOTHER_NAMESPACE -> sockets.add(held(proxy, elsewhere.listenInside(proxy.address())));
            }
            Receiver.Carried carried =
                    new Receiver.Carried(new Receiver.Origin(1, Posix.ownNamespaceCookie()), sockets);

            IOException refused = assertThrows(IOException.class, () -> second.restore(policy, carried));

            assertTrue(refused.getMessage().startsWith("bad-handoff: "), refused.getMessage());
            assertTrue(refused.getMessage().contains(bad.reason), refused.getMessage());
            assertRefusedWhole(sockets);
        }
    }

    @Test
    void socketsOfAnotherNamespaceThanTheCarriedOriginAreRefused() throws Exception {
        SpawnPolicy policy = policy(STUDIO);
        List<Receiver.Held> sockets = List.of(held(TestEntry.socket(Kind.PROXY, PROXY), listen(PROXY)));
        Receiver.Carried carried =
                new Receiver.Carried(new Receiver.Origin(7, Posix.ownNamespaceCookie() + 1), sockets);

        IOException refused = assertThrows(IOException.class, () -> second.restore(policy, carried));

        assertTrue(
                refused.getMessage().contains("made in another network namespace than the spawn's (expected: net:[7])"),
                refused.getMessage());
        assertRefusedWhole(sockets);
    }

    /** The token file is the program's: one that is not a token the relay wrote stops the restore and stays as it is. */
    @Test
    void aTokenFileThatIsNotTheSpawnsTokenIsRefusedAndLeftAsItIs() throws Exception {
        Path tokenFile = parent.resolve("kiosk-token");
        Files.writeString(tokenFile, "f".repeat(64));
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-r--r--"));
        SpawnPolicy policy = policy("""
                {"id": "kiosk", "proxyPort": %d, "door": {"port": 3401, "routes": [], "tokenFile": "%s"}}""".formatted(PROXY, tokenFile));
        List<Receiver.Held> sockets = List.of(
                held(TestEntry.socket(Kind.PROXY, PROXY), listen(PROXY)),
                held(TestEntry.socket(Kind.DOOR, 3401), listen(3401)));
        Receiver.Carried carried = new Receiver.Carried(new Receiver.Origin(1, Posix.ownNamespaceCookie()), sockets);

        IOException refused = assertThrows(IOException.class, () -> second.restore(policy, carried));

        assertTrue(refused.getMessage().contains("door.tokenFile: " + tokenFile), refused.getMessage());
        assertTrue(refused.getMessage().contains("mode rw-r--r--"), refused.getMessage());
        assertEquals("f".repeat(64), Files.readString(tokenFile));
        assertRefusedWhole(sockets);
    }

    /** A restore refused: nothing serves, the id is free, one decision line says {@code bad-handoff}. */
    private void assertRefusedWhole(List<Receiver.Held> sockets) throws Exception {
        for (Receiver.Held held : sockets) {
            if (held.socket().address().getAddress().equals(LOOPBACK)) {
                assertThrows(
                        ConnectException.class,
                        () -> SpawnClient.open(held.socket().port()).close(),
                        "every descriptor given is closed: " + held.socket());
            }
        }
        assertTrue(second.spawns().isEmpty());
        Decision decision = after.poll(5, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line");
        assertEquals("handoff", decision.kind());
        assertEquals(DenyCode.BAD_HANDOFF.code(), Line.of(decision).code());
        SpawnHandle again = second.restore(
                policy(STUDIO),
                new Receiver.Carried(
                        new Receiver.Origin(1, Posix.ownNamespaceCookie()),
                        List.of(held(TestEntry.socket(Kind.PROXY, PROXY), listen(PROXY)))));
        assertEquals(SpawnHandle.State.SERVING, again.state());
    }

    private static int listen(int port) throws IOException {
        return Posix.listenTcp(new InetSocketAddress(LOOPBACK, port), 16);
    }

    private static Receiver.Held held(Handoff.Socket socket, int fd) {
        return new Receiver.Held(socket, fd);
    }
}
