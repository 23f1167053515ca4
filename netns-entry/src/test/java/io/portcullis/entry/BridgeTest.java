package io.portcullis.entry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.entry.wire.Preamble;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The entry in this JVM on free loopback ports, in front of a real unix-socket relay. */
@Timeout(60)
class BridgeTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    private Entry entry;
    private TestRelay relay;

    @AfterEach
    void stop() throws IOException {
        if (entry != null) {
            entry.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    private Path socket() {
        return dir.resolve("relay.sock");
    }

    private EntryOptions start(TestRelay.Service service, String... ports) throws Exception {
        relay = TestRelay.start(socket(), service);
        String[] args = new String[ports.length + 2];
        args[0] = "--relay";
        args[1] = socket().toString();
        System.arraycopy(ports, 0, args, 2, ports.length);
        EntryOptions options = ((CommandLine.Run) CommandLine.parse(args)).options();
        entry = Entry.start(options, log);
        return options;
    }

    private static Socket connect(InetAddress address, int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(address, port), 2000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] roundTrip(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        socket.shutdownOutput();
        return socket.getInputStream().readAllBytes();
    }

    @Test
    void sendsThePreambleOfTheKindAndPortTheClientReached() throws Exception {
        List<Integer> ports = FreePorts.take(3);
        start(
                TestRelay.ECHO,
                "--proxy-port",
                "" + ports.get(0),
                "--forward",
                "" + ports.get(1),
                "--door",
                "" + ports.get(2));
        List<Preamble> expected = List.of(
                new Preamble(Preamble.Kind.PROXY, ports.get(0)),
                new Preamble(Preamble.Kind.FORWARD, ports.get(1)),
                new Preamble(Preamble.Kind.DOOR, ports.get(2)));
        for (String address : entry.readiness().addresses()) {
            for (Preamble preamble : expected) {
                try (Socket client = connect(InetAddress.getByName(address), preamble.port())) {
                    assertArrayEquals("ping".getBytes(StandardCharsets.US_ASCII), roundTrip(client, "ping"), address);
                }
                assertEquals(preamble, relay.nextPreamble(), address + " " + preamble);
            }
        }
    }

    @Test
    void passesTheClientsHalfCloseToTheRelayAndStillCarriesTheAnswer() throws Exception {
        int port = FreePorts.take(1).getFirst();
        start(
                connection -> {
                    long received = 0;
                    ByteBuffer buffer = ByteBuffer.allocate(1024);
                    for (int n; (n = connection.read(buffer.clear())) >= 0; ) {
                        received += n;
                    }
                    connection.write(ByteBuffer.wrap(("got " + received).getBytes(StandardCharsets.US_ASCII)));
                },
                "--proxy-port",
                "" + port);
        try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
            assertEquals("got 5", new String(roundTrip(client, "hello"), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void passesTheRelaysHalfCloseToTheClientWhichMayStillSend() throws Exception {
        int port = FreePorts.take(1).getFirst();
        BlockingQueue<String> afterBanner = new LinkedBlockingQueue<>();
        start(bannerThenCollect(afterBanner), "--proxy-port", "" + port);
        try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
            assertEquals("banner", new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
            client.getOutputStream().write("after".getBytes(StandardCharsets.US_ASCII));
            client.shutdownOutput();
            assertEquals("after", afterBanner.poll(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void freesTheThreadOfTheRelaysDirectionWhileTheClientStillSends() throws Exception {
        BlockingQueue<String> afterBanner = new LinkedBlockingQueue<>();
        relay = TestRelay.start(socket(), bannerThenCollect(afterBanner));
        Bridge bridge = new Bridge(socket(), new Workers(), log);
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(Listeners.IPV4_LOOPBACK, 0));
                Socket client =
                        connect(Listeners.IPV4_LOOPBACK, ((InetSocketAddress) listener.getLocalAddress()).getPort());
                SocketChannel accepted = listener.accept()) {
            CompletableFuture.runAsync(
                            () -> bridge.carry(accepted, new Preamble(Preamble.Kind.PROXY, 1)),
                            work -> Thread.ofPlatform().start(work))
                    .get(5, TimeUnit.SECONDS);
            assertEquals("banner", new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
            assertTrue(accepted.isOpen(), "the client's direction is still carried");
            client.getOutputStream().write("after".getBytes(StandardCharsets.US_ASCII));
            client.shutdownOutput();
            assertEquals("after", afterBanner.poll(5, TimeUnit.SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (accepted.isOpen() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(!accepted.isOpen(), "closed once both directions ended");
        }
    }

    @Test
    void carries64MiBBothWaysUnchanged() throws Exception {
        List<Integer> ports = FreePorts.take(2);
        int port = ports.get(0);
        // A free proxy port too: the default 39080 may be held by anything else on the machine.
        start(TestRelay.ECHO, "--forward", "" + port, "--proxy-port", "" + ports.get(1));
        int total = 64 << 20;
        try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
            CompletableFuture<byte[]> sent = CompletableFuture.supplyAsync(() -> send(client, total, 7));
            MessageDigest received = sha256();
            byte[] buffer = new byte[64 * 1024];
            long count = 0;
            InputStream in = client.getInputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                received.update(buffer, 0, n);
                count += n;
            }
            assertEquals(total, count);
            assertArrayEquals(sent.get(30, TimeUnit.SECONDS), received.digest());
        }
    }

    private static byte[] send(Socket client, int total, long seed) {
        MessageDigest digest = sha256();
        Random random = new Random(seed);
        byte[] chunk = new byte[48 * 1024 + 5];
        try {
            OutputStream out = client.getOutputStream();
            for (int left = total; left > 0; ) {
                random.nextBytes(chunk);
                int n = Math.min(left, chunk.length);
                out.write(chunk, 0, n);
                digest.update(chunk, 0, n);
                left -= n;
            }
            client.shutdownOutput();
            return digest.digest();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void closesNewConnectionsAtOnceWhileTheRelayIsGoneAndCarriesThemWhenItIsBack() throws Exception {
        int port = FreePorts.take(1).getFirst();
        start(TestRelay.ECHO, "--proxy-port", "" + port);
        relay.close();
        for (int i = 0; i < 3; i++) {
            long begin = System.nanoTime();
            assertEquals("closed", outcome(port));
            assertTrue(System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(1), "closed within a second");
        }
        assertEquals(
                1,
                logBytes.toString(StandardCharsets.UTF_8)
                        .lines()
                        .filter(line -> line.contains("unreachable"))
                        .count(),
                logBytes::toString);

        relay = TestRelay.start(socket(), TestRelay.ECHO);
        try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
            assertEquals("back", new String(roundTrip(client, "back"), StandardCharsets.US_ASCII));
        }
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("reachable again"), logBytes::toString);
    }

    /** How a new connection to the port ends; a reset may already surface while connecting. */
    private static String outcome(int port) throws IOException {
        try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
            client.setSoTimeout(1000);
            return client.getInputStream().read() < 0 ? "closed" : "got a byte";
        } catch (SocketTimeoutException e) {
            return "still open";
        } catch (SocketException e) {
            return "closed";
        }
    }

    @Test
    void waitsForARelayWhoseAcceptQueueIsFullInsteadOfClosing() throws Exception {
        int port = FreePorts.take(1).getFirst();
        relay = TestRelay.stalled(socket(), TestRelay.ECHO);
        entry = Entry.start(
                ((CommandLine.Run) CommandLine.parse("--relay", socket().toString(), "--proxy-port", "" + port))
                        .options(),
                log);
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String text = "client " + i;
                answers.add(clients.submit(() -> {
                    try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
                        return new String(roundTrip(client, text), StandardCharsets.US_ASCII);
                    } catch (IOException e) {
                        return e.toString();
                    }
                }));
            }
            Thread.sleep(300);
            relay.accept();
            for (int i = 0; i < answers.size(); i++) {
                assertEquals("client " + i, answers.get(i).get(10, TimeUnit.SECONDS));
            }
        }
        assertEquals("", logBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void closesTheConnectionWhenTheRelaysAcceptQueueStaysFull() throws Exception {
        int port = FreePorts.take(1).getFirst();
        relay = TestRelay.stalled(socket(), TestRelay.ECHO);
        List<SocketChannel> queued = fillAcceptQueue(socket());
        try {
            entry = Entry.start(
                    ((CommandLine.Run) CommandLine.parse("--relay", socket().toString(), "--proxy-port", "" + port))
                            .options(),
                    log);
            try (Socket client = connect(Listeners.IPV4_LOOPBACK, port)) {
                client.setSoTimeout(10_000);
                long begin = System.nanoTime();
                assertEquals(-1, readOrEnd(client));
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
                assertTrue(
                        waited >= Bridge.BUSY_RELAY_WAIT.toMillis() - 100 && waited < 5000,
                        "closed after " + waited + " ms");
            }
            assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("unreachable"), logBytes::toString);
        } finally {
            for (SocketChannel channel : queued) {
                channel.close();
            }
        }
    }

    /** Connects without blocking until the kernel answers that the relay's accept queue is full. */
    private static List<SocketChannel> fillAcceptQueue(Path socket) throws IOException {
        List<SocketChannel> queued = new ArrayList<>();
        while (queued.size() < 64) {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.configureBlocking(false);
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
                queued.add(channel);
            } catch (IOException e) {
                channel.close();
                assertTrue(Bridge.busy(e), e.toString());
                return queued;
            }
        }
        throw new AssertionError("the accept queue never filled");
    }

    private static int readOrEnd(Socket client) throws IOException {
        try {
            return client.getInputStream().read();
        } catch (SocketException e) {
            return -1;
        }
    }

    @Test
    void endsTheClientsConnectionWhenTheRelayDropsIt() throws Exception {
        int port = FreePorts.take(1).getFirst();
        start(connection -> connection.close(), "--proxy-port", "" + port);
        assertEquals("closed", outcome(port));
    }

    /** A relay side that sends "banner", half-closes, then puts everything the client sends after it in {@code rest}. */
    private static TestRelay.Service bannerThenCollect(BlockingQueue<String> rest) {
        return connection -> {
            connection.write(ByteBuffer.wrap("banner".getBytes(StandardCharsets.US_ASCII)));
            connection.shutdownOutput();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            while (connection.read(buffer.clear()) >= 0) {
                bytes.write(buffer.array(), 0, buffer.position());
            }
            rest.add(bytes.toString(StandardCharsets.US_ASCII));
        };
    }
}
