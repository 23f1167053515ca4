package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.testing.Judges;
import io.portcullis.relay.testing.KindServer;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RecordingOrigin;
import io.portcullis.relay.transport.Transport;
import io.portcullis.relay.tunnel.Dialer;
import io.portcullis.relay.tunnel.Tunnels;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Plain HTTP framing that a lenient origin would read differently (SPEC R10, issue 9 item 8),
 * through the proxy kind's real pipeline to a real origin that records every byte it got.
 */
class PlainHttpFramingTest {
    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private RecordingOrigin origin;
    private KindServer proxy;

    @BeforeEach
    void start() throws Exception {
        origin = RecordingOrigin.ok("fine");
        SpawnJudge judge = Judges.of(request -> CompletableFuture.completedFuture(
                request.kind() == Request.Kind.HTTP && request.target().equals("127.0.0.1:" + origin.port())
                        ? new Verdict.Allow(
                                List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")
                        : new Verdict.Deny(DenyCode.NOT_LISTED, "test")));
        ProxyKind kind = new ProxyKind(
                8192,
                10_000,
                new Tunnels(new Dialer(Transport.nio(), 2000), 60_000),
                new Exchange.Limits(1 << 20, 1 << 20, 10_000));
        proxy = new KindServer(() -> kind.handler(judge), decisions::add);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        origin.close();
    }

    private String url() {
        return "http://127.0.0.1:" + origin.port();
    }

    private String code() throws InterruptedException {
        Decision decision = decisions.poll(5, TimeUnit.SECONDS);
        return decision == null ? "no decision" : Line.of(decision).code();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "Transfer_Encoding: chunked",
                "Content_Length: 40",
                "transfer_encoding: chunked",
                "X_Forwarded_For: 10.0.0.1",
                "Host_: other.example",
                "_: x",
            })
    void aHeaderWithAnUnderscoreNeverReachesTheOrigin(String field) throws Exception {
        String answer = proxy.exchange(
                "POST " + url() + "/a HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port() + "\r\n" + field
                        + "\r\nContent-Length: 5\r\nAccept: */*\r\n\r\nhello",
                5000);

        assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
        assertEquals(
                List.of("POST /a HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port()
                        + "\r\nAccept: */*\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"),
                origin.received());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET %s/ HTTP/1.1\r\nHost: %s\r\nContent-Length: 5\r\n\r\nhello",
                "GET %s/ HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                "HEAD %s/ HTTP/1.1\r\nHost: %s\r\nContent-Length: 1\r\n\r\nx",
                "HEAD %s/ HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "GET %s/ HTTP/1.1\r\nHost: %s\r\nHost: %2$s\r\n\r\n",
                "GET %s/ HTTP/1.1\r\nHost: %s\r\nHost: other.example\r\n\r\n",
            })
    void aGetOrHeadWithABodyOrTwoHostFieldsIs400AndNothingGoesUpstream(String request) throws Exception {
        String answer = proxy.exchange(request.formatted(url(), "127.0.0.1:" + origin.port()), 5000);

        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
        assertEquals("bad-request", code());
        assertEquals(0, origin.connections());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET %s/ HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\n\r\n",
                "GET %s/ HTTP/1.1\r\nHost: %s\r\n\r\n",
            })
    void aGetWithoutABodyGoesUpstream(String request) throws Exception {
        String answer = proxy.exchange(request.formatted(url(), "127.0.0.1:" + origin.port()), 5000);

        assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
        assertEquals(1, origin.received().size());
    }
}
