package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.handoff.HandoffRefused;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RemoteEntry;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Handoff.Kind;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Sender;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
 * SPEC R3, R4: the relay trusts nothing in a hand-over. Each bad one is refused whole, with the
 * reason in the answer and {@code bad-handoff} on the decision line, and every descriptor it
 * brought is closed (nothing then answers on its ports). Real sockets, real SCM_RIGHTS.
 */
@Timeout(30)
class HandoffTest {
    private static final int PROXY = 39080;
    private static final int FORWARD = 5000;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private Relay relay;
    private SpawnHandle spawn;

    @BeforeEach
    void open() throws Exception {
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .decisions(decisions::add)
                .judge((policy, request) ->
                        CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test")))
                .start();
        spawn = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "hosts": [{"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(FORWARD)));
    }

    @AfterEach
    void close() {
        relay.close();
    }

    /** What a bad entry sends, and a part of the reason the relay must give. */
    enum Bad {
        WRONG_PORT(
                "is not one this spawn's policy calls for",
                socket(Kind.PROXY, PROXY + 1),
                socket(Kind.FORWARD, FORWARD)),
        MISSING_SOCKET("the proxy 127.0.0.1:39080 socket is missing", socket(Kind.FORWARD, FORWARD)),
        EXTRA_SOCKET(
                "is not one this spawn's policy calls for",
                socket(Kind.PROXY, PROXY),
                socket(Kind.FORWARD, FORWARD),
                socket(Kind.FORWARD, FORWARD + 1)),
        WRONG_KIND("is not one this spawn's policy calls for", socket(Kind.DOOR, PROXY), socket(Kind.FORWARD, FORWARD)),
        TWICE("is there twice", socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD), socket(Kind.PROXY, PROXY));

        final String reason;
        final List<Handoff.Socket> sockets;

        Bad(String reason, Handoff.Socket... sockets) {
            this.reason = reason;
            this.sockets = List.of(sockets);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Bad.class)
    void aHandOverThatIsNotThePolicysIsRefusedWhole(Bad bad) throws Exception {
        List<Integer> fds = new ArrayList<>();
        for (Handoff.Socket socket : bad.sockets) {
            // a socket named twice is one descriptor sent twice
            fds.add(
                    fds.isEmpty() || !bad.sockets.subList(0, fds.size()).contains(socket)
                            ? Posix.listenTcp(socket.address(), 16)
                            : fds.get(bad.sockets.indexOf(socket)));
        }
        assertRefused(send(bad.sockets, fds), bad.reason);
    }

    /** How the forward's socket is made wrong, and the reason the relay must give. */
    enum WrongSocket {
        BOUND_ELSEWHERE(
                address -> Posix.listenTcp(new InetSocketAddress(LOOPBACK, FORWARD + 7), 16),
                "(expected: what its entry says, 127.0.0.1:5000)"),
        NOT_LISTENING(Posix::bindTcp, "not listening (expected: a listening socket)"),
        UDP(Posix::bindUdp, "(expected: TCP)");

        final Maker maker;
        final String reason;

        WrongSocket(Maker maker, String reason) {
            this.maker = maker;
            this.reason = reason;
        }
    }

    @FunctionalInterface
    interface Maker {
        int make(InetSocketAddress address) throws IOException;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(WrongSocket.class)
    void aSocketThatIsNotWhatItsEntrySaysIsRefused(WrongSocket wrong) throws Exception {
        List<Handoff.Socket> sockets = List.of(socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD));
        int proxy = Posix.listenTcp(sockets.get(0).address(), 16);
        int forward = wrong.maker.make(sockets.get(1).address());
        assertRefused(send(sockets, List.of(proxy, forward)), wrong.reason);
    }

    @Test
    void aSocketOfAnotherNetworkNamespaceIsRefused() throws Exception {
        List<Handoff.Socket> sockets = List.of(socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD));
        try (RemoteEntry elsewhere = RemoteEntry.start()) {
            int foreign = elsewhere.listenInside(sockets.get(0).address());
            int forward = Posix.listenTcp(sockets.get(1).address(), 16);
            assertRefused(send(sockets, List.of(foreign, forward)), "made in another network namespace");
        }
    }

    /** D29: in the relay's own namespace a forward would dial the relay itself, so it may be missing. */
    @Test
    void aForwardMayBeMissingInTheRelaysOwnNamespaceOnly() throws Exception {
        try (RemoteEntry elsewhere = RemoteEntry.start()) {
            IOException refused =
                    assertThrows(IOException.class, () -> elsewhere.handOver(spawn.socket(), PROXY, List.of()));
            assertTrue(
                    refused.getMessage().contains("the forward 127.0.0.1:5000 socket is missing"),
                    refused.getMessage());
        }
        SpawnHandle here = relay.open(SpawnPolicyJson.parse("here.json", """
                {"id": "here", "proxyPort": 39180, "hosts": [{"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(FORWARD)));
        // bindAndHandOver closes the test's copy: only the relay holds the socket, until it closes.
        assertEquals(
                Handoff.ACCEPTED, Sender.bindAndHandOver(here.socket(), List.of(socket(Kind.PROXY, 39180)), 10_000));
    }

    @Test
    void fewerDescriptorsThanSocketsIsRefused() throws Exception {
        List<Handoff.Socket> sockets = List.of(socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD));
        int proxy = Posix.listenTcp(sockets.get(0).address(), 16);
        int connection = Posix.connectUnix(spawn.socket().toString(), 10_000);
        try {
            Posix.sendWithFds(connection, new Handoff(sockets).encode(), new int[] {proxy});
            Posix.closeQuietly(proxy);
            assertRefused(Sender.answer(connection, 10_000), "1 descriptors for 2 sockets");
        } finally {
            Posix.closeQuietly(connection);
        }
    }

    @Test
    void theSpawnSocketServesOneHandOverThenIsGone() throws Exception {
        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);

        assertFalse(Files.exists(spawn.socket()));
        assertFalse(Files.exists(spawn.directory()));
        assertThrows(IOException.class, () -> TestEntry.handOver(spawn));
        try (SpawnClient client = SpawnClient.open(PROXY, "GET / HTTP/1.1\r\n\r\n")) {
            assertTrue(client.readHead().startsWith("HTTP/1.1 400"), "the proxy port answers");
        }
    }

    @Test
    void onceTheSpawnClosesNewConnectionsAreRefusedAtOnce() throws Exception {
        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);

        spawn.close();

        assertThrows(ConnectException.class, () -> SpawnClient.open(PROXY));
        assertThrows(ConnectException.class, () -> SpawnClient.open(FORWARD));
    }

    private String send(List<Handoff.Socket> sockets, List<Integer> fds) throws IOException {
        try {
            return Sender.handOver(
                    spawn.socket(),
                    sockets,
                    fds.stream().mapToInt(Integer::intValue).toArray(),
                    10_000);
        } finally {
            fds.stream().distinct().forEach(Posix::closeQuietly);
        }
    }

    private void assertRefused(String answer, String reason) throws Exception {
        assertTrue(answer.startsWith(Handoff.REFUSED), answer);
        assertTrue(answer.contains(reason), answer);
        Decision decision = decisions.poll(5, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line");
        assertEquals("handoff", decision.kind());
        assertEquals("bad-handoff", Line.of(decision).code());
        ExecutionException failure =
                assertThrows(ExecutionException.class, () -> spawn.handedOver().get(5, TimeUnit.SECONDS));
        assertTrue(failure.getCause() instanceof HandoffRefused refused && answer.contains(refused.reason()), answer);
        assertFalse(Files.exists(spawn.socket()), "a hand-over, good or bad, uses up the spawn socket");
        assertThrows(ConnectException.class, () -> SpawnClient.open(PROXY), "every descriptor received is closed");
        awaitRemoved(spawn);
    }

    /** Issue 26 #17: a spawn whose hand-over was refused stayed listed, with a socket that no longer existed. */
    @Test
    void aRefusedHandOverRemovesTheSpawnAndItsDoorTokenAndFreesItsId() throws Exception {
        Path token = parent.resolve("kiosk-token");
        String policy =
                "{\"id\": \"kiosk\", \"door\": {\"port\": 3001, \"routes\": [], \"tokenFile\": \"" + token + "\"}}";
        SpawnHandle kiosk = relay.open(SpawnPolicyJson.parse("kiosk.json", policy));
        assertTrue(Files.exists(token));

        int connection = Posix.connectUnix(kiosk.socket().toString(), 10_000);
        String answer;
        try {
            Posix.sendAll(connection, "not a hand-over\n".getBytes(StandardCharsets.US_ASCII), 0);
            answer = Sender.answer(connection, 10_000);
        } finally {
            Posix.closeQuietly(connection);
        }

        assertTrue(answer.startsWith(Handoff.REFUSED), answer);
        awaitRemoved(kiosk);
        assertFalse(Files.exists(token), "the door token is removed with the spawn");
        assertEquals(
                List.of("studio"), relay.spawns().stream().map(SpawnHandle::id).toList());
        SpawnHandle again = relay.open(SpawnPolicyJson.parse("kiosk.json", policy));
        assertTrue(Files.exists(again.socket()), "the id is free again");
    }

    private void awaitRemoved(SpawnHandle handle) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (relay.spawn(handle.id()).isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(relay.spawn(handle.id()).isEmpty(), "the relay still lists " + handle.id());
        assertTrue(handle.isClosed());
    }

    private static Handoff.Socket socket(Kind kind, int port) {
        return new Handoff.Socket(kind, new InetSocketAddress(LOOPBACK, port));
    }
}
