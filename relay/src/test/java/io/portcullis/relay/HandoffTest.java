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
            IOException refused = assertThrows(
                    IOException.class, () -> elsewhere.handOver(spawn.socket(), spawn.handoffKey(), PROXY, List.of()));
            assertTrue(
                    refused.getMessage().contains("the forward 127.0.0.1:5000 socket is missing"),
                    refused.getMessage());
        }
        SpawnHandle here = relay.open(SpawnPolicyJson.parse("here.json", """
                {"id": "here", "proxyPort": 39180, "hosts": [{"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(FORWARD)));
        // bindAndHandOver closes the test's copy: only the relay holds the socket, until it closes.
        assertEquals(
                Handoff.ACCEPTED,
                Sender.bindAndHandOver(here.socket(), key(here), List.of(socket(Kind.PROXY, 39180)), 10_000));
    }

    @Test
    void fewerDescriptorsThanSocketsIsRefused() throws Exception {
        List<Handoff.Socket> sockets = List.of(socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD));
        int proxy = Posix.listenTcp(sockets.get(0).address(), 16);
        int connection = Posix.connectUnix(spawn.socket().toString(), 10_000);
        try {
            Posix.sendWithFds(connection, new Handoff(key(spawn), sockets).encode(), new int[] {proxy});
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

    /** What a connection without the spawn's key sends. */
    enum Unkeyed {
        /** A whole, good hand-over of the policy's sockets, with another key. */
        ANOTHER_KEY,
        /** Anything but a hand-over. */
        NOT_A_HAND_OVER,
        /** The previous format, which had no key. */
        NO_KEY,
        /** Nothing: the connection closes. */
        NOTHING
    }

    /**
     * Finding 4 of the attack on issue 26's fixes: a process of the relay's uid (a rootless spawn)
     * connected to another spawn's socket before its entry and handed its own sockets over; a
     * broken hand-over then removed the other spawn. Without the key, neither happens.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Unkeyed.class)
    void aConnectionWithoutTheSpawnsKeyIsTurnedAwayAndTheSpawnWaitsForItsEntry(Unkeyed unkeyed) throws Exception {
        List<Handoff.Socket> sockets = List.of(socket(Kind.PROXY, PROXY), socket(Kind.FORWARD, FORWARD));
        String answer = switch (unkeyed) {
            case ANOTHER_KEY ->
                Sender.bindAndHandOver(spawn.socket(), Handoff.Key.parse("5a".repeat(32)), sockets, 10_000);
            case NOT_A_HAND_OVER -> raw("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            case NO_KEY -> raw(java.util.HexFormat.of().parseHex("5043483101010498a87f000001000000000000000000000000"));
            case NOTHING -> {
                Posix.closeQuietly(Posix.connectUnix(spawn.socket().toString(), 10_000));
                yield Handoff.REFUSED;
            }
        };

        assertTrue(answer.startsWith(Handoff.REFUSED), answer);
        if (unkeyed == Unkeyed.ANOTHER_KEY) {
            assertEquals(Handoff.REFUSED + io.portcullis.wire.Receiver.WRONG_KEY, answer);
            assertThrows(ConnectException.class, () -> SpawnClient.open(PROXY), "the forger's sockets are closed");
        }
        Decision decision = decisions.poll(5, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line");
        assertEquals("handoff", decision.kind());
        assertEquals("bad-handoff", Line.of(decision).code());
        assertTrue(Files.exists(spawn.socket()), "the spawn socket still waits for its entry");
        assertFalse(spawn.handedOver().isDone());
        assertEquals(SpawnHandle.State.WAITING, spawn.state());

        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);
        assertEquals(SpawnHandle.State.SERVING, spawn.state());
        try (SpawnClient client = SpawnClient.open(PROXY, "GET / HTTP/1.1\r\n\r\n")) {
            assertTrue(client.readHead().startsWith("HTTP/1.1 400"), "the entry's proxy port answers");
        }
    }

    /**
     * Finding 5: an entry of the relay's uid without a pid namespace of its own (here root in a
     * user namespace root made, whose uid is the relay's) could signal and trace the relay.
     */
    @Test
    void anEntryOfTheRelaysUidInTheRelaysPidNamespaceIsRefused() throws Exception {
        try (RemoteEntry entry = RemoteEntry.startRootlessSharingPids()) {
            IOException refused = assertThrows(
                    IOException.class,
                    () -> entry.handOver(spawn.socket(), spawn.handoffKey(), PROXY, List.of(FORWARD)));

            assertTrue(
                    refused.getMessage().contains("runs as the relay's uid 0 in the relay's pid namespace pid:["),
                    refused.getMessage());
            assertTrue(refused.getMessage().contains("(expected: an entry in a pid namespace of its own"));
        }
        awaitRemoved(spawn);
    }

    @Test
    void theHostConfigurationMayLetSuchAnEntryHandOver() throws Exception {
        relay.reload(HostConfig.DEFAULTS.withHandoff(new HostConfig.HandoffRules(true)));

        try (RemoteEntry entry = RemoteEntry.startRootlessSharingPids()) {
            entry.handOver(spawn.socket(), spawn.handoffKey(), PROXY, List.of(FORWARD));
        }
        spawn.handedOver().get(5, TimeUnit.SECONDS);
    }

    @Test
    void theSameEntryInAPidNamespaceOfItsOwnHandsOver() throws Exception {
        try (RemoteEntry entry = RemoteEntry.startRootless()) {
            entry.handOver(spawn.socket(), spawn.handoffKey(), PROXY, List.of(FORWARD));
        }
        spawn.handedOver().get(5, TimeUnit.SECONDS);
    }

    /** Connections without the key cannot hold the socket's readers: past them, one is turned away at once. */
    @Test
    void atMostFourConnectionsAreReadAtOnceAndTheEntryGetsInOnceTheyEnd() throws Exception {
        List<Integer> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                silent.add(Posix.connectUnix(spawn.socket().toString(), 10_000));
            }
            assertEquals(
                    Handoff.REFUSED + "more than 4 hand-overs at once on this spawn's socket (expected: its entry's)",
                    fifth());
            for (int connection : silent) {
                Posix.sendAll(connection, "PCH2".getBytes(StandardCharsets.US_ASCII), 0);
                Posix.sendAll(connection, new byte[32], 0);
                assertEquals(
                        Handoff.REFUSED + io.portcullis.wire.Receiver.WRONG_KEY, Sender.answer(connection, 10_000));
            }
        } finally {
            silent.forEach(Posix::closeQuietly);
        }

        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);
    }

    /**
     * The answer to a connection that comes while four others are being read. The relay accepts
     * them on its own loop, so until it has, a probe is read like any: it sends a whole start with
     * another key, which is answered at once, and tries again.
     */
    private String fifth() throws Exception {
        byte[] probe = new byte[4 + 32];
        System.arraycopy("PCH2".getBytes(StandardCharsets.US_ASCII), 0, probe, 0, 4);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String answer;
        do {
            answer = raw(probe);
        } while (answer.equals(Handoff.REFUSED + io.portcullis.wire.Receiver.WRONG_KEY)
                && System.nanoTime() < deadline);
        return answer;
    }

    /** Sends {@code bytes} on a fresh connection to the spawn socket; the answer. */
    private String raw(byte[] bytes) throws IOException {
        int connection = Posix.connectUnix(spawn.socket().toString(), 10_000);
        try {
            Posix.sendAll(connection, bytes, 0);
            return Sender.answer(connection, 10_000);
        } finally {
            Posix.closeQuietly(connection);
        }
    }

    private static Handoff.Key key(SpawnHandle handle) {
        return Handoff.Key.parse(handle.handoffKey());
    }

    private String send(List<Handoff.Socket> sockets, List<Integer> fds) throws IOException {
        try {
            return Sender.handOver(
                    spawn.socket(),
                    key(spawn),
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

        // The spawn's key, then no socket: a hand-over of the wall's own entry that is broken.
        int connection = Posix.connectUnix(kiosk.socket().toString(), 10_000);
        String answer;
        try {
            byte[] header = new Handoff(key(kiosk), List.of(socket(Kind.PROXY, PROXY))).encode();
            Posix.sendAll(connection, header, 0);
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
