package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.RecordingOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Plain HTTP (SPEC R10) through a real relay to a real origin that records every byte it
 * received: what goes upstream, what comes back, and that nothing refused ever arrives.
 */
class PlainHttpTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold it. */
    private static final int PROXY = 28080;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<String> judged = new ArrayList<>();
    private HostConfig.Limits limits = HostConfig.DEFAULTS.limits();
    private RecordingOrigin origin;
    private Relay relay;
    private SpawnHandle spawn;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    /** A spawn whose judge allows only {@code 127.0.0.1:<origin>} for plain HTTP, to the origin. */
    private void start(RecordingOrigin answering) throws Exception {
        origin = answering;
        start(answering, answering.address());
    }

    /** As {@link #start(RecordingOrigin)}, for an origin of the test's own at {@code address}. */
    private void start(AutoCloseable upstream, InetSocketAddress address) throws Exception {
        closing(upstream);
        HostConfig host = HostConfig.DEFAULTS.withLimits(limits);
        relay = Relay.builder(host)
                .directory(parent)
                .decisions(decisions::add)
                .judge((policy, request) -> {
                    judged.add(request.kind() + " " + request.target());
                    return CompletableFuture.completedFuture(
                            request.kind() == Request.Kind.HTTP
                                            && request.target().equals("127.0.0.1:" + address.getPort())
                                    ? new Verdict.Allow(
                                            List.of(address), List.of(InetAddress.getLoopbackAddress()), "test")
                                    : new Verdict.Deny(DenyCode.NOT_LISTED, "test"));
                })
                .start();
        spawn = relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "proxyPort": %d, "hosts": [{"target": "127.0.0.1:%d", "scheme": "http"}]}""".formatted(PROXY, address.getPort())));
        TestEntry.handOver(spawn);
    }

    /** The default limits but for plain HTTP's: the request body, the answer body, the whole exchange. */
    private static HostConfig.Limits httpLimits(long requestBytes, long responseBytes, Duration total) {
        return new HostConfig.Limits(
                8192,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Duration.ofMinutes(15),
                512,
                16_384,
                1_048_576,
                requestBytes,
                responseBytes,
                total);
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }

    /** Sends {@code request} (with {@code ORIGIN} standing for the origin's host:port) and reads all of the answer. */
    private String exchange(String request) throws Exception {
        // Closed once read, as a client does: the relay lingers on a refusal until then (SPEC R17).
        try (SpawnClient client =
                SpawnClient.open(spawn.proxyPort(), request.replace("ORIGIN", "127.0.0.1:" + origin.port()))) {
            return new String(client.readToEnd(), StandardCharsets.ISO_8859_1);
        }
    }

    private Decision nextDecision() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision line within 10 s");
        return decision;
    }

    @Test
    void aGetGoesUpstreamInOriginFormWithoutHopByHopFieldsAndTheAnswerComesBackClosed() throws Exception {
        start(RecordingOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive, X-Hop\r\n"
                + "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nX-End: 2\r\n\r\nhello"));

        String answer = exchange(
                "GET http://ORIGIN/a/b?c=d HTTP/1.1\r\nHost: ORIGIN\r\nUser-Agent: t\r\n"
                        + "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nConnection: X-Private, TE\r\n"
                        + "X-Private: secret\r\nTE: trailers\r\nKeep-Alive: 300\r\nUpgrade: h2c\r\nTrailer: X\r\nExpect: 100-continue\r\n\r\n");

        assertEquals(
                List.of("GET /a/b?c=d HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port() + "\r\nUser-Agent: t\r\n"
                        + "Connection: close\r\n\r\n"),
                origin.received());
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-End: 2\r\nConnection: close\r\n\r\nhello", answer);
        Decision decision = nextDecision();
        assertEquals("allow", Line.of(decision).verdict());
        assertEquals("127.0.0.1:" + origin.port(), Line.of(decision).target());
        assertEquals(answer.length(), decision.bytesDown());
        assertEquals(List.of("HTTP 127.0.0.1:" + origin.port()), judged);
    }

    @Test
    void anOriginCannotPassItsAnswerOffAsTheRelaysRefusal() throws Exception {
        start(RecordingOrigin.answering("HTTP/1.1 403 Forbidden\r\nPortcullis-Deny: not-listed\r\n"
                + "portcullis-error: connect-failed\r\nPORTCULLIS-Anything: 1\r\nX-Portcullis-Deny: kept\r\n"
                + "Content-Length: 12\r\n\r\nnot-listed: "));

        String answer = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertEquals(
                "HTTP/1.1 403 Forbidden\r\nX-Portcullis-Deny: kept\r\nContent-Length: 12\r\nConnection: close\r\n\r\n"
                        + "not-listed: ",
                answer);
        Decision decision = nextDecision();
        assertEquals("allow", Line.of(decision).verdict());
        assertEquals(null, Line.of(decision).code());
    }

    @Test
    void aSecondPipelinedRequestNeverReachesUpstream() throws Exception {
        start(RecordingOrigin.ok("one"));

        String answer = exchange("POST http://ORIGIN/one HTTP/1.1\r\nHost: ORIGIN\r\nContent-Length: 3\r\n\r\nabc"
                + "GET http://ORIGIN/two HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertTrue(answer.endsWith("\r\n\r\none"), answer);
        assertEquals(
                List.of("POST /one HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port()
                        + "\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"),
                origin.received());
        assertEquals(1, origin.connections());
    }

    @Test
    void aChunkedBodyGoesUpstreamInTheRelaysOwnChunks() throws Exception {
        start(RecordingOrigin.ok("ok"));

        exchange("PUT http://ORIGIN/up HTTP/1.1\r\nHost: ORIGIN\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n");

        String received = origin.received().getFirst();
        assertTrue(received.startsWith("PUT /up HTTP/1.1\r\n"), received);
        assertTrue(received.contains("\r\nTransfer-Encoding: chunked\r\n"), received);
        assertTrue(received.endsWith("\r\n\r\n3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\n"), received);
        assertFalse(received.contains("smuggled"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "CL and TE                | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nContent-Length: 4\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n",
                "TE and CL                | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding: chunked\\r\\nContent-Length: 4\\r\\n\\r\\n0\\r\\n\\r\\n",
                "two differing CL         | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nContent-Length: 1\\r\\nContent-Length: 4\\r\\n\\r\\nabcd",
                "two equal CL             | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nContent-Length: 4\\r\\nContent-Length: 4\\r\\n\\r\\nabcd",
                "CL list                  | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nContent-Length: 4, 4\\r\\n\\r\\nabcd",
                "TE not chunked           | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding: gzip\\r\\n\\r\\nabcd",
                "TE chunked twice         | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding: chunked, chunked\\r\\n\\r\\n0\\r\\n\\r\\n",
                "TE with a tab            | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding: \\tchunked x\\r\\n\\r\\n0\\r\\n\\r\\n",
                "TE space before colon    | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding : chunked\\r\\n\\r\\n0\\r\\n\\r\\n",
                "obs-fold                 | GET http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nX: a\\r\\n\\tb\\r\\n\\r\\n",
                "obs-fold of TE           | POST http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nTransfer-Encoding:\\r\\n chunked\\r\\n\\r\\n0\\r\\n\\r\\n",
                "bare LF                  | GET http://ORIGIN/ HTTP/1.1\\nHost: ORIGIN\\r\\n\\r\\n",
                "bare CR                  | GET http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\rX: y\\r\\n\\r\\n",
                "NUL                      | GET http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\nX: a\\0b\\r\\n\\r\\n",
                "invalid method           | G@T http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\n\\r\\n",
                "invalid version          | GET http://ORIGIN/ HTTP/2.0\\r\\nHost: ORIGIN\\r\\n\\r\\n",
                "lower-case version       | GET http://ORIGIN/ http/1.1\\r\\nHost: ORIGIN\\r\\n\\r\\n",
                "userinfo                 | GET http://user:pw@ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\n\\r\\n",
                "Host of another port     | GET http://ORIGIN/ HTTP/1.1\\r\\nHost: 127.0.0.1:1\\r\\n\\r\\n",
                "no Host                  | GET http://ORIGIN/ HTTP/1.1\\r\\n\\r\\n",
                "two spaces               | GET  http://ORIGIN/ HTTP/1.1\\r\\nHost: ORIGIN\\r\\n\\r\\n",
            })
    void anAmbiguousRequestIs400AndNothingReachesUpstream(String shape, String request) throws Exception {
        start(RecordingOrigin.ok("never"));

        String answer = exchange(request.replace("\\r", "\r")
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\0", "\0"));

        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), shape + ": " + answer);
        assertTrue(answer.contains("\r\nPortcullis-Deny: bad-request\r\n"), answer);
        assertEquals("bad-request", Line.of(nextDecision()).code());
        assertTrue(judged.isEmpty(), judged.toString());
        assertEquals(0, origin.connections());
    }

    @Test
    void aBadChunkIs400AndTheUpstreamNeverSeesACompleteRequest() throws Exception {
        start(RecordingOrigin.ok("never"));

        String answer = exchange("POST http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;ext=1\r\nabc\r\n0\r\n\r\n");

        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
        assertEquals("bad-request", Line.of(nextDecision()).code());
        List<String> received = origin.received();
        assertTrue(received.isEmpty() || !received.getFirst().endsWith("0\r\n\r\n"), received.toString());
    }

    @Test
    void anUpgradeIsNeverPassedThrough() throws Exception {
        start(RecordingOrigin.answering(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nraw"));

        String answer = exchange(
                "GET http://ORIGIN/ws HTTP/1.1\r\nHost: ORIGIN\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");

        assertTrue(answer.startsWith("HTTP/1.1 502 Bad Gateway\r\n"), answer);
        assertTrue(answer.contains("\r\nPortcullis-Error: bad-response\r\n"), answer);
        assertFalse(answer.contains("raw"));
        assertFalse(
                origin.received().getFirst().toLowerCase().contains("upgrade"),
                origin.received().getFirst());
    }

    @ParameterizedTest(name = "{0} -> 502 bad-response")
    @CsvSource(
            delimiter = '|',
            value = {
                "two lengths     | HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\nContent-Length: 4\\r\\n\\r\\nabcd",
                "not HTTP        | SSH-2.0-OpenSSH_9.6\\r\\n\\r\\n",
                "a cut body      | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n5\\r\\nab",
                "a bad chunk     | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\nab\\r\\n0\\r\\n\\r\\n",
                "gzip, chunked   | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n3\\r\\nabc\\r\\n0\\r\\n\\r\\n",
            })
    void aMalformedAnswerIsNeverPassedOnWhole(String shape, String raw) throws Exception {
        start(RecordingOrigin.answering(raw.replace("\\r", "\r").replace("\\n", "\n")));

        String answer = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        boolean refused =
                answer.startsWith("HTTP/1.1 502 Bad Gateway\r\n") && answer.contains("Portcullis-Error: bad-response");
        boolean cut = answer.startsWith("HTTP/1.1 200 OK\r\n") && !answer.endsWith("\r\n0\r\n\r\n");
        assertTrue(refused || cut, shape + ": " + answer);
        assertEquals("bad-response", Line.of(nextDecision()).code());
    }

    @Test
    void anAnswerWithoutLengthGoesChunkedToAnHttp11ClientAndUntilTheCloseToAnHttp10One() throws Exception {
        start(RecordingOrigin.answering("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end"));

        String chunked = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");
        String closed = exchange("GET http://ORIGIN/ HTTP/1.0\r\n\r\n");

        assertEquals(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nd\r\nuntil the end\r\n0\r\n\r\n",
                chunked);
        assertEquals("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end", closed);
        assertTrue(origin.received().get(1).startsWith("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port() + "\r\n"));
    }

    @Test
    void aSlowClientHoldsTheOriginBackInsteadOfPilingTheAnswerUpInTheRelay() throws Exception {
        limits = httpLimits(10, 256L << 20, Duration.ofSeconds(30));
        long body = 192L << 20;
        FloodingOrigin flooding = new FloodingOrigin(body);
        start(flooding, flooding.address());
        try (Socket client = new Socket()) {
            client.setReceiveBufferSize(16_384);
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), spawn.proxyPort()), 5_000);
            client.getOutputStream()
                    .write(("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n")
                            .replace("ORIGIN", "127.0.0.1:" + flooding.port())
                            .getBytes(StandardCharsets.US_ASCII));
            // The client reads slowly: the relay may hold one read of the origin beyond what the kernel buffers.
            InputStream in = client.getInputStream();
            byte[] piece = new byte[4096];
            long received = 0;
            for (long deadline = System.nanoTime() + 4_000_000_000L; System.nanoTime() < deadline; ) {
                int n = in.read(piece);
                assertTrue(n > 0, "the answer ended early");
                received += n;
                Thread.sleep(1);
            }
            long held = flooding.written() - received;
            assertTrue(received > 0, "the client received nothing: " + decisions.peek());
            // The kernel's buffers on both sides (a few MiB each by default, more where tcp_rmem and
            // tcp_wmem allow) are in flight too; reading on at every piece pulls nearly all of it.
            assertTrue(
                    held < body / 2,
                    (held >> 20) + " MiB written by the origin and not yet read by the client: the relay read on"
                            + " faster than it wrote");
        }
    }

    /** An origin that answers one request with {@code body} bytes after a Content-Length, counting what it wrote. */
    private static final class FloodingOrigin implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 1, LoopbackOrigin.HOST);
        private final AtomicLong written = new AtomicLong();
        private final Thread thread;

        FloodingOrigin(long body) throws IOException {
            thread = Thread.ofPlatform().daemon().start(() -> {
                try (Socket socket = server.accept()) {
                    InputStream in = socket.getInputStream();
                    for (int matched = 0; matched < 4; ) {
                        int b = in.read();
                        if (b < 0) {
                            return;
                        }
                        matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] block = new byte[65_536];
                    for (long left = body; left > 0; left -= block.length) {
                        out.write(block, 0, (int) Math.min(left, block.length));
                        written.addAndGet(Math.min(left, block.length));
                    }
                } catch (IOException e) {
                    // the relay closed the connection: the test is over
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        InetSocketAddress address() {
            return new InetSocketAddress(LoopbackOrigin.HOST, port());
        }

        long written() {
            return written.get();
        }

        @Override
        public void close() throws IOException {
            server.close();
            thread.interrupt();
        }
    }

    @Test
    void aConnectionFieldTakesItsFieldsAwayButNeverTheLength() throws Exception {
        start(RecordingOrigin.answering(
                "HTTP/1.1 200 OK\r\nConnection: content-length, x-hop\r\nX-Hop: 1\r\nContent-Length: 5\r\n\r\nhello"));

        String answer = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", answer);
    }

    @Test
    void aHeadAnswerMayNameAnyTransferCodingSinceItHasNoBody() throws Exception {
        start(RecordingOrigin.answering("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"));

        String answer = exchange("HEAD http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertEquals("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", answer);
    }

    @Test
    void aHeadAnswerHasNoBody() throws Exception {
        start(RecordingOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"));

        String answer = exchange("HEAD http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n", answer);
    }

    @Test
    void anAnswerOverTheLimitIs502AndARequestBodyOverItIs413() throws Exception {
        limits = httpLimits(10, 4, Duration.ofSeconds(30));
        start(RecordingOrigin.ok("12345"));

        String large = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");
        String body = exchange("POST http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\nContent-Length: 11\r\n\r\n01234567890");

        assertTrue(
                large.startsWith("HTTP/1.1 502 Bad Gateway\r\n")
                        && large.contains("Portcullis-Error: response-too-large"),
                large);
        assertTrue(
                body.startsWith("HTTP/1.1 413 Content Too Large\r\n")
                        && body.contains("Portcullis-Deny: body-too-large"),
                body);
        assertEquals(1, origin.connections());
    }

    @Test
    void anUpstreamThatNeverAnswersIs504WhenTheTotalTimeIsUp() throws Exception {
        limits = httpLimits(1024, 1024, Duration.ofMillis(300));
        start(RecordingOrigin.answering(""));

        String answer = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n\r\n");

        assertTrue(answer.startsWith("HTTP/1.1 504 Gateway Timeout\r\n"), answer);
        assertTrue(answer.contains("\r\nPortcullis-Error: http-timeout\r\n"), answer);
        assertEquals("http-timeout", Line.of(nextDecision()).code());
    }

    @Test
    void aHeadThatIsTooSlowIs408AndOneTooLargeIs431() throws Exception {
        limits = new HostConfig.Limits(
                512, Duration.ofMillis(300), Duration.ofSeconds(10), Duration.ofMinutes(15), 512, 16_384, 1_048_576);
        start(RecordingOrigin.ok("never"));

        String slow = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\n");
        String large = exchange("GET http://ORIGIN/ HTTP/1.1\r\nHost: ORIGIN\r\nX: " + "a".repeat(600) + "\r\n\r\n");

        assertTrue(slow.startsWith("HTTP/1.1 408 Request Timeout\r\n"), slow);
        assertTrue(large.startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"), large);
        assertEquals(0, origin.connections());
    }

    @Test
    void aRefusedAuthorityNeverReachesUpstream() throws Exception {
        start(RecordingOrigin.ok("never"));

        String answer = exchange("GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");

        assertTrue(answer.contains("\r\nPortcullis-Deny: not-listed\r\n"), answer);
        assertEquals(List.of("HTTP 127.0.0.1:1"), judged);
        assertEquals(0, origin.connections());
    }
}
