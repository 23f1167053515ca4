package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.accept.Budgets;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.TestEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every refusal reaches its client whole under a flood (issue 26 item 16, SPEC R17): 64 clients at
 * once, 2,000 connections in all, each writing a request and a body the relay never reads, against
 * a spawn whose budget is half of that, so some are refused at accept ({@code 503 limit-spawn})
 * and the others on their head ({@code 403 not-listed}). A close with those unread bytes in the
 * receive buffer sent a reset, and the client lost the answer it had not read yet.
 *
 * <p>Refused connections that hold no budget place linger only while fewer than {@code
 * Budgets.LINGERING} do; past that they are answered and closed at once, and their decision line
 * says so. Whether a busy machine gets there depends on how far behind the loops fall, so the test
 * asks that every connection not so marked was answered whole.
 */
@Timeout(120)
class RefusalFloodTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold it. */
    private static final int PROXY = 28083;

    private static final int CLIENTS = 64;
    private static final int CONNECTIONS = 2_000;
    private static final String BODY = "x".repeat(16 * 1024);

    @TempDir
    Path parent;

    private Relay relay;

    @AfterEach
    void closeAll() {
        relay.close();
    }

    /** The decision lines of connections answered and closed at once, without lingering. */
    private final AtomicInteger atOnce = new AtomicInteger();

    private SpawnHandle start() throws Exception {
        HostConfig.Limits limits = new HostConfig.Limits(
                8192,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Duration.ofMinutes(15),
                CLIENTS / 2,
                16_384,
                1 << 20,
                HostConfig.Limits.DEFAULT_HTTP_REQUEST_BYTES,
                HostConfig.Limits.DEFAULT_HTTP_RESPONSE_BYTES,
                HostConfig.Limits.DEFAULT_HTTP_TOTAL,
                1_000_000,
                1_000_000);
        relay = Relay.builder(HostConfig.DEFAULTS.withLimits(limits))
                .directory(parent)
                .decisions(decision -> {
                    if (decision.reason().contains("closed at once")) {
                        atOnce.incrementAndGet();
                    }
                })
                .judge((policy, request) ->
                        CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test")))
                .start();
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "proxyPort": %d, "hosts": []}""".formatted(PROXY)));
        TestEntry.handOver(spawn);
        return spawn;
    }

    @Test
    void everyClientOfAFloodReadsItsWholeRefusal() throws Exception {
        start();
        byte[] request = ("POST http://blocked.test/upload HTTP/1.1\r\nHost: blocked.test\r\nContent-Length: "
                        + BODY.length() + "\r\n\r\n" + BODY)
                .getBytes(StandardCharsets.US_ASCII);

        // The spawn's budget is held full by clients that send nothing for the first quarter of the
        // flood, so those connections are refused at accept whatever the machine's pace; then freed,
        // so the rest are refused on their head, or at accept when 64 clients outrun 32 places.
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < CLIENTS / 2; i++) {
            held.add(connect());
        }
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(pool.submit(() -> {
                    for (int n; (n = next.getAndIncrement()) < CONNECTIONS; ) {
                        if (n == CONNECTIONS / 4) {
                            for (Socket socket : held) {
                                socket.close();
                            }
                        }
                        outcomes.computeIfAbsent(refusal(request), key -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get();
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }

        Map<String, Integer> counted = new TreeMap<>();
        outcomes.forEach((outcome, count) -> counted.put(outcome, count.get()));
        int whole = counted.getOrDefault("403 not-listed", 0) + counted.getOrDefault("503 limit-spawn", 0);
        assertTrue(whole >= CONNECTIONS - atOnce.get(), counted + ", closed at once: " + atOnce);
        // Those that took a number before the budget was freed, but connected after, may have had a place.
        assertTrue(
                counted.getOrDefault("503 limit-spawn", 0) >= CONNECTIONS / 4 - CLIENTS,
                "refusals at accept: " + counted);
        assertTrue(counted.getOrDefault("403 not-listed", 0) > 0, "no refusal on a head: " + counted);
    }

    /**
     * Past {@code Budgets.LINGERING} refused connections lingering at once, a refusal at accept is
     * answered and closed at once, and its decision line says so: the descriptors that no budget
     * counts stay bounded, and an operator can tell why such a client may have seen a reset.
     */
    @Test
    void pastTheLingeringBoundARefusalIsClosedAtOnceAndItsLineSaysSo() throws Exception {
        start();
        int past = 10;
        List<Socket> held = new ArrayList<>();
        try {
            // Every budget place taken by a client that sends nothing (the head timeout is 10 s).
            for (int i = 0; i < CLIENTS / 2; i++) {
                held.add(connect());
            }
            // Refused at accept, each lingering until it ends or for 2 s: none ends here.
            for (int i = 0; i < Budgets.LINGERING + past; i++) {
                held.add(connect());
            }
            for (long deadline = System.nanoTime() + 5_000_000_000L; atOnce.get() < past; ) {
                assertTrue(System.nanoTime() < deadline, "closed at once: " + atOnce + " of " + past);
                Thread.sleep(10);
            }
            // The linger lasts 2 s from each refusal; had opening them taken longer, fewer would be past the bound.
            assertTrue(atOnce.get() <= past, "closed at once: " + atOnce);
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), PROXY), 10_000);
        return socket;
    }

    /**
     * The lingering is bounded: a refused client that keeps sending and never closes has its
     * connection closed, and its budget place freed, once {@code Linger.BYTES} came or {@code
     * Linger.MILLIS} passed.
     */
    @Test
    void aRefusedClientThatKeepsSendingIsClosedWithinTheBound() throws Exception {
        SpawnHandle spawn = start();
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), PROXY), 10_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET http://blocked.test/ HTTP/1.1\r\nHost: blocked.test\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            byte[] junk = new byte[1024];
            assertThrows(IOException.class, () -> {
                for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; ) {
                    socket.getOutputStream().write(junk);
                    Thread.sleep(1);
                }
            });
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 5_000, millis + " ms");
        for (long deadline = System.nanoTime() + 5_000_000_000L; spawn.openConnections() > 0; ) {
            assertTrue(System.nanoTime() < deadline, "the place was not freed");
            Thread.sleep(10);
        }
    }

    /** One connection: the request and its body in one write, then the answer read whole; what came of it. */
    private static String refusal(byte[] request) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), PROXY), 10_000);
            socket.setSoTimeout(10_000);
            try {
                socket.getOutputStream().write(request);
            } catch (SocketException e) {
                // The relay may have shut its side while the body was still going out: read what it said.
            }
            return answer(socket.getInputStream());
        } catch (SocketException e) {
            return "reset: " + e.getMessage();
        } catch (IOException e) {
            return "failed: " + e;
        }
    }

    /** {@code <status> <code>} of a whole answer (its body as long as its Content-Length), else what was wrong. */
    private static String answer(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        int length = text.indexOf("\r\nContent-Length: ");
        int code = text.indexOf("\r\nPortcullis-Deny: ");
        if (end < 0 || length < 0 || code < 0) {
            return "cut: " + text.length() + " bytes";
        }
        int declared = Integer.parseInt(text.substring(length + 18, text.indexOf("\r\n", length + 2)));
        if (text.length() - end - 4 != declared) {
            return "cut body";
        }
        return text.substring(9, 12) + " " + text.substring(code + 19, text.indexOf("\r\n", code + 2));
    }
}
