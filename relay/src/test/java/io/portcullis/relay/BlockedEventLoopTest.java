package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Sender;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC R4, decision D73: {@code O_NONBLOCK} belongs to the open file description that every copy
 * of a handed-over socket shares, so an entry that kept a copy made the relay's socket blocking and
 * took each connection (or datagram) itself once the relay was woken for it: the relay's accept
 * (or receive) then waited on its event loop, and every connection of every spawn on that loop
 * stalled until the next connection, for ever when none came.
 *
 * <p>The relay reads the flag before each event of a handed-over socket, so a socket made blocking
 * breaks its spawn at its next connection or query. A holder can still clear the flag between
 * that read and the relay's call; no test can time that race from outside, so the test's judge
 * wins it on the event loop's own thread: it clears the flag and accepts (or reads) on the
 * handed-over socket, where the relay's own call would wait. The watchdog then shuts that socket
 * down. Either way, with one event loop, another spawn answers within {@link #BOUND_MILLIS}, and
 * the blocking socket's spawn is broken once, with one {@code listener-broken} line.
 */
@Timeout(60)
class BlockedEventLoopTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold them. */
    private static final int BROKEN = 28680;

    private static final int OTHER = 28780;
    /** How long another spawn may wait while a loop is blocked: the watchdog's two ticks, with room for a busy machine. */
    private static final long BOUND_MILLIS = 2000;
    /** The spawn whose requests the test's judge decides on the loop, blocking it. */
    private static final String BLOCKER = "blocker";

    private static final byte[] QUERY = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 1, 0, 1};

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    /** What the judge does for {@link #BLOCKER}'s requests, on the event loop. */
    private volatile Judge blocker = (policy, request) -> refused();

    private Relay relay;
    private SpawnHandle other;

    @BeforeEach
    void open() throws Exception {
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .threads(1)
                .decisions(decisions::add)
                .judge((policy, request) -> policy.id().equals(BLOCKER) ? blocker.decide(policy, request) : refused())
                .start();
        other = relay.open(SpawnPolicyJson.parse("other.json", """
                {"id": "other", "hosts": [], "proxyPort": %d}""".formatted(OTHER)));
        TestEntry.handOver(other);
    }

    @AfterEach
    void close() {
        relay.close();
    }

    @Test
    void aProxySocketMadeBlockingByAnEntryThatKeptACopyBreaksItsSpawnAtItsNextConnection() throws Exception {
        SpawnHandle spawn = spawn("accept", "listed");
        Handoff.Socket proxy = TestEntry.socket(Handoff.Kind.PROXY, BROKEN);
        int kept = Posix.listenTcp(proxy.address(), 16);
        Thread thief = null;
        try {
            handOver(spawn, proxy, kept);

            Posix.blocking(kept);
            thief = Thread.ofPlatform().name("thief").daemon(true).start(() -> {
                try {
                    while (true) {
                        Posix.closeQuietly(Posix.accept(kept)); // takes each connection the relay was woken for
                    }
                } catch (Posix.Failure e) {
                    // shut down
                }
            });
            Action connect = () -> {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), BROKEN)) {
                    client.setSoLinger(true, 0);
                }
            };
            connect.run();
            assertAnotherSpawnAnswers();
            pokeUntilBroken(spawn, connect);

            assertBrokenOnce(
                    spawn, proxy, "proxy:127.0.0.1:" + BROKEN, "the socket was made blocking (a holder of a copy");
        } finally {
            Posix.shutdownQuietly(kept); // without the fix, what ends the relay's accept
            Posix.closeQuietly(kept);
            if (thief != null) {
                thief.join(5000);
            }
        }
    }

    @Test
    void aDnsSocketMadeBlockingByAnEntryThatKeptACopyBreaksItsSpawnAtItsNextQuery() throws Exception {
        SpawnHandle spawn = spawn("recv", "listed");
        Handoff.Socket dns = TestEntry.socket(Handoff.Kind.DNS, 53);
        int kept = Posix.bindUdp(dns.address());
        Thread thief = null;
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            handOver(spawn, dns, kept);

            Posix.blocking(kept);
            thief = Thread.ofPlatform().name("thief").daemon(true).start(() -> {
                try {
                    Posix.readAtMost(kept, 1 << 16); // takes each datagram, blocking, until shut down
                } catch (Posix.Failure e) {
                    // shut down
                }
            });
            Action query = () -> client.send(new DatagramPacket(QUERY, QUERY.length, dns.address()));
            query.run();
            assertAnotherSpawnAnswers();
            pokeUntilBroken(spawn, query);

            assertBrokenOnce(spawn, dns, "dns:127.0.0.1:53", "the socket was made blocking (a holder of a copy");
        } finally {
            Posix.shutdownQuietly(kept);
            Posix.closeQuietly(kept);
            if (thief != null) {
                thief.join(5000);
            }
        }
    }

    /** The race won: the flag cleared after the relay read it, and the accept that follows waits. */
    @Test
    void aLoopBlockedInAcceptOnAProxySocketIsFreedAndItsSpawnBroken() throws Exception {
        SpawnHandle spawn = spawn(BLOCKER, "listed");
        Handoff.Socket proxy = TestEntry.socket(Handoff.Kind.PROXY, BROKEN);
        int kept = Posix.listenTcp(proxy.address(), 16);
        CountDownLatch blocking = new CountDownLatch(1);
        blocker = (policy, request) -> {
            try {
                Posix.blocking(kept);
                blocking.countDown();
                Posix.closeQuietly(Posix.accept(kept)); // nothing else connects: waits, as the relay's accept would
            } catch (Posix.Failure e) {
                // shut down by the watchdog
            }
            return refused();
        };
        try (Socket client = new Socket()) {
            handOver(spawn, proxy, kept);

            client.connect(proxy.address(), 5000);
            client.getOutputStream().write(connect("pub.test:443"));
            assertTrue(blocking.await(10, TimeUnit.SECONDS), "the judge ran");
            assertAnotherSpawnAnswers();

            assertBrokenOnce(spawn, proxy, "proxy:127.0.0.1:" + BROKEN, "the relay's event loop was blocked for ");
            assertTrue(
                    spawn.broken().orElseThrow().contains(" ms in accept4 on it"),
                    spawn.broken().orElseThrow());
        } finally {
            Posix.shutdownQuietly(kept); // without the fix, what ends the judge's accept
            Posix.closeQuietly(kept);
        }
    }

    /** The race won on the DNS socket: the flag cleared after the relay read it, and a receive waits. */
    @Test
    void aLoopBlockedReceivingOnADnsSocketIsFreedAndItsSpawnBroken() throws Exception {
        SpawnHandle spawn = spawn(BLOCKER, "internet");
        Handoff.Socket dns = TestEntry.socket(Handoff.Kind.DNS, 53);
        int kept = Posix.bindUdp(dns.address());
        CountDownLatch blocking = new CountDownLatch(1);
        blocker = (policy, request) -> {
            try {
                Posix.blocking(kept);
                blocking.countDown();
                Posix.readAtMost(kept, 1 << 16); // nothing else is sent: waits, as the relay's receive would
            } catch (Posix.Failure e) {
                // shut down by the watchdog
            }
            return refused();
        };
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            handOver(spawn, dns, kept);

            client.send(new DatagramPacket(QUERY, QUERY.length, dns.address()));
            assertTrue(blocking.await(10, TimeUnit.SECONDS), "the judge ran");
            assertAnotherSpawnAnswers();

            assertBrokenOnce(spawn, dns, "dns:127.0.0.1:53", "the relay's event loop was blocked for ");
            assertTrue(
                    spawn.broken().orElseThrow().contains(" ms in read on it"),
                    spawn.broken().orElseThrow());
        } finally {
            Posix.shutdownQuietly(kept);
            Posix.closeQuietly(kept);
        }
    }

    private SpawnHandle spawn(String id, String network) throws Exception {
        return relay.open(SpawnPolicyJson.parse(id + ".json", """
                {"id": "%s", "network": "%s", "hosts": [], "proxyPort": %d}""".formatted(id, network, BROKEN)));
    }

    /**
     * Hands {@code socket} over, with its descriptor {@code kept} that the test keeps as the entry
     * that kept a copy; a DNS socket goes with a proxy socket, which the test does not keep.
     */
    private static void handOver(SpawnHandle spawn, Handoff.Socket socket, int kept) throws Exception {
        Handoff.Key key = Handoff.Key.parse(spawn.handoffKey());
        if (socket.kind() == Handoff.Kind.PROXY) {
            assertEquals(
                    Handoff.ACCEPTED, Sender.handOver(spawn.socket(), key, List.of(socket), new int[] {kept}, 10_000));
        } else {
            Handoff.Socket proxy = TestEntry.socket(Handoff.Kind.PROXY, BROKEN);
            int proxyFd = Posix.listenTcp(proxy.address(), 16);
            try {
                String answer =
                        Sender.handOver(spawn.socket(), key, List.of(proxy, socket), new int[] {proxyFd, kept}, 10_000);
                assertEquals(Handoff.ACCEPTED, answer);
            } finally {
                Posix.closeQuietly(proxyFd);
            }
        }
        spawn.handedOver().get(5, TimeUnit.SECONDS);
    }

    /** Does {@code poke} every 20 ms until {@code spawn} is broken, for at most 10 s. */
    private static void pokeUntilBroken(SpawnHandle spawn, Action poke) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (spawn.state() != SpawnHandle.State.BROKEN) {
            assertTrue(System.nanoTime() < deadline, "the spawn is still " + spawn.state());
            poke.run();
            Thread.sleep(20);
        }
    }

    /** Another spawn on the same event loop answers a CONNECT within {@link #BOUND_MILLIS}. */
    private void assertAnotherSpawnAnswers() throws IOException {
        long start = System.nanoTime();
        String head = answer(OTHER, connect("pub.test:443"));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(head.startsWith("HTTP/1.1 403"), "another spawn answers: " + head);
        assertTrue(waited < BOUND_MILLIS, "another spawn answered in " + waited + " ms");
    }

    private void assertBrokenOnce(SpawnHandle spawn, Handoff.Socket socket, String target, String why)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (spawn.state() != SpawnHandle.State.BROKEN && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(SpawnHandle.State.BROKEN, spawn.state());
        String said = spawn.broken().orElseThrow();
        assertTrue(said.startsWith(socket + ": " + why), said);
        List<Decision> broken = decisions.stream()
                .filter(decision -> decision.code().orElse(null) == DenyCode.LISTENER_BROKEN)
                .toList();
        assertEquals(1, broken.size(), "one listener-broken line: " + decisions);
        assertEquals(spawn.id(), broken.getFirst().spawn());
        assertEquals(target, Line.of(broken.getFirst()).target());
        assertTrue(relay.metricsText().contains("portcullis_listeners_broken_total 1.0"), relay.metricsText());
        assertEquals(SpawnHandle.State.SERVING, other.state());
    }

    private static CompletableFuture<Verdict> refused() {
        return CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test"));
    }

    private static byte[] connect(String target) {
        return "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                .formatted(target, target)
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The response head to {@code request} on 127.0.0.1:{@code port}, or what came of it within the bound. */
    private static String answer(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout((int) BOUND_MILLIS);
            socket.getOutputStream().write(request);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
            }
            return head.toString(StandardCharsets.ISO_8859_1);
        } catch (SocketTimeoutException e) {
            return "nothing within " + BOUND_MILLIS + " ms";
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }
}
