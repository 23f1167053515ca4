package io.portcullis.relay.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.testing.Judges;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.transport.Transport;
import io.portcullis.relay.tunnel.Dialer;
import io.portcullis.relay.tunnel.Tunnels;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProxyKindTest {
    private static final int HEADER_BYTES = 256;
    private static final long HEADER_TIMEOUT_MILLIS = 2000;

    private final List<Decision> decisions = new ArrayList<>();
    private final List<String> judged = new ArrayList<>();
    private DenyCode verdict = DenyCode.NOT_LISTED;

    private EmbeddedChannel channel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        // The embedded loop's clock runs with real time unless frozen: freeze it before the header
        // timeout is scheduled, so only advanceTimeBy moves it (a slow machine must not fire it early).
        channel.freezeTime();
        ConnectionRecord.attach(channel, "studio", 3, InstantSource.system(), decisions::add, Traffic.own());
        Tunnels tunnels = new Tunnels(new Dialer(Transport.nio(), 1000), 60_000);
        SpawnJudge judge = Judges.of(request -> {
            judged.add(request.kind() + " " + request.target());
            return CompletableFuture.completedFuture(new Verdict.Deny(verdict, "test"));
        });
        channel.pipeline()
                .addLast(new ProxyKind(
                                HEADER_BYTES, HEADER_TIMEOUT_MILLIS, tunnels, new Exchange.Limits(100, 1000, 60_000))
                        .handler(judge));
        return channel;
    }

    private static String send(EmbeddedChannel channel, String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
        return drain(channel);
    }

    private static String drain(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        for (ByteBuf buf; (buf = channel.readOutbound()) != null; buf.release()) {
            out.append(buf.toString(StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n                             | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/2.0\\r\\n\\r\\n                          | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1\\n\\n                                | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1\\r\\nX: a\\rb\\r\\n\\r\\n            | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1\\r\\nX: \\0\\r\\n\\r\\n              | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT  a.example:443 HTTP/1.1\\r\\n\\r\\n                         | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1 x\\r\\n\\r\\n                        | 400 Bad Request | Portcullis-Deny: bad-request",
                "\\r\\n\\r\\n                                                        | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1\\r\\nHost: a.example:443\\r\\nHost: a.example:443\\r\\n\\r\\n | 400 Bad Request | Portcullis-Deny: bad-request",
                // HTTP/0.9 and other request lines that no blank line follows: refused as the line ends.
                "GET /kiosk/state\\r\\n                                              | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443\\r\\n                                         | 400 Bad Request | Portcullis-Deny: bad-request",
                "GET http://printer.lan/ HTTP/1.1 \\r\\n                               | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.1\\r\\nHost: a.example:443\\r\\nhost: b.example:443\\r\\n\\r\\n | 400 Bad Request | Portcullis-Deny: bad-request",
                "CONNECT a.example:443 HTTP/1.0\\r\\nHost: a.example:443\\r\\nHost: a.example:443\\r\\n\\r\\n | 400 Bad Request | Portcullis-Deny: bad-request",
            })
    void aHeadThatIsNotACleanConnectIsAnsweredAndClosedWithoutAJudgement(String head, String status, String header) {
        EmbeddedChannel channel = channel();

        String reply = send(channel, unescape(head));

        assertReply(reply, status, header);
        assertTrue(judged.isEmpty());
        assertFalse(channel.isOpen());
        assertEquals("deny", Line.of(decisions.getFirst()).verdict());
        assertEquals(
                header.substring(header.indexOf(' ') + 1),
                Line.of(decisions.getFirst()).code());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "CONNECT a.example:443 HTTP/1.1\\r\\nHost: a.example:443\\r\\n\\r\\n",
                // Python's http.client (urllib, requests, pip) and socat send HTTP/1.0 with no Host.
                "CONNECT a.example:443 HTTP/1.0\\r\\n\\r\\n",
                "CONNECT a.example:443 HTTP/1.0\\r\\nHost: a.example:443\\r\\n\\r\\n",
            })
    void aConnectOfEitherVersionIsJudged(String head) {
        EmbeddedChannel channel = channel();

        String reply = send(channel, unescape(head));

        assertEquals(List.of("CONNECT a.example:443"), judged);
        assertReply(reply, "403 Forbidden", "Portcullis-Deny: not-listed");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "NOT_LISTED       | 403 Forbidden       | Portcullis-Deny: not-listed",
                "BAD_REQUEST      | 400 Bad Request     | Portcullis-Deny: bad-request",
                "OWNER_ERROR      | 403 Forbidden       | Portcullis-Deny: owner-error",
                "DNS_TIMEOUT      | 504 Gateway Timeout | Portcullis-Error: dns-timeout",
                "DNS_FAILED       | 502 Bad Gateway     | Portcullis-Error: dns-failed",
                "NOT_GLOBAL_UNICAST | 403 Forbidden     | Portcullis-Deny: not-global-unicast",
            })
    void aDeniedConnectIsAnsweredWithItsCode(DenyCode code, String status, String header) {
        verdict = code;
        EmbeddedChannel channel = channel();

        String reply = send(channel, "CONNECT Nas.Lan:8443 HTTP/1.1\r\nHost: Nas.Lan:8443\r\n\r\n");

        assertEquals(List.of("CONNECT Nas.Lan:8443"), judged);
        assertReply(reply, status, header);
        assertTrue(reply.endsWith("\r\n\r\n" + code.code() + ": " + code.sentence() + "\n"), reply);
        assertFalse(channel.isOpen());
        Decision decision = decisions.getFirst();
        assertEquals("Nas.Lan:8443", Line.of(decision).target());
        assertEquals(code.code(), Line.of(decision).code());
        assertEquals("deny", Line.of(decision).verdict());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET http://Printer.LAN/a?b=1 HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n    | HTTP Printer.LAN:80",
                "HEAD HTTP://printer.lan:8080 HTTP/1.1\\r\\nHost: printer.lan:8080\\r\\n\\r\\n | HTTP printer.lan:8080",
                "GET http://[::1]:81/ HTTP/1.1\\r\\nHost: [::1]:81\\r\\n\\r\\n            | HTTP [::1]:81",
                "GET http://printer.lan/ HTTP/1.0\\r\\n\\r\\n                                  | HTTP printer.lan:80",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 100\\r\\n\\r\\n | HTTP printer.lan:80",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 0\\r\\n\\r\\n | HTTP printer.lan:80",
            })
    void aPlainHttpRequestIsJudgedByItsAuthorityWithThePortMadeExplicit(String head, String judgement) {
        EmbeddedChannel channel = channel();

        String reply = send(channel, unescape(head));

        assertEquals(List.of(judgement), judged);
        assertReply(reply, "403 Forbidden", "Portcullis-Deny: not-listed");
        assertEquals(judgement.substring(5), Line.of(decisions.getFirst()).target());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET http://printer.lan/ HTTP/1.1\\r\\n\\r\\n                                          | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: other.lan\\r\\n\\r\\n                     | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan:81\\r\\n\\r\\n                | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nHost: printer.lan\\r\\n\\r\\n | bad-request",
                "GET http://u:p@printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                | bad-request",
                "GET http://printer.lan:/ HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                   | bad-request",
                "GET http://printer.lan/a#b HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                 | bad-request",
                "GET http://printer.lan/a\\\\b HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n             | bad-request",
                "GET http://printer.lan/%zz HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                 | bad-request",
                "GET http://printer.lan/\u00e9 HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n               | bad-request",
                "GET https://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                  | bad-request",
                "GET http://printer.lan/ HTTP/1.2\\r\\nHost: printer.lan\\r\\n\\r\\n                   | bad-request",
                "G(T http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\n\\r\\n                   | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1\\r\\nContent-Length: 1\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1, 1\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: +1\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nTransfer-Encoding: chunked\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | bad-request",
                "POST http://printer.lan/ HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n            | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nX: a\\r\\n b\\r\\n\\r\\n     | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost : printer.lan\\r\\n\\r\\n                  | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nX: a\\u0001\\r\\n\\r\\n | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1\\r\\n\\r\\n | bad-request",
                "GET http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | bad-request",
                "HEAD http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 1\\r\\n\\r\\n | bad-request",
                "HEAD http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | bad-request",
                "GET http://printer.lan/ HTTP/1.0\\r\\nContent-Length: 1\\r\\n\\r\\n                  | bad-request",
                "POST http://printer.lan/ HTTP/1.1\\r\\nHost: printer.lan\\r\\nContent-Length: 101\\r\\n\\r\\n | body-too-large",
            })
    void aMalformedOrAmbiguousPlainHttpRequestIsRefusedWithoutAJudgement(String head, String code) {
        EmbeddedChannel channel = channel();

        String reply = send(channel, unescape(head));

        assertTrue(judged.isEmpty(), judged.toString());
        assertTrue(reply.contains("\r\nPortcullis-Deny: " + code + "\r\n"), reply);
        assertFalse(channel.isOpen());
        assertEquals(code, Line.of(decisions.getFirst()).code());
    }

    @Test
    void aHeadArrivingInPiecesIsJudgedOnce() {
        EmbeddedChannel channel = channel();

        for (String piece : List.of("CONN", "ECT a.example:443 HT", "TP/1.1\r", "\nHost: a\r\n", "\r", "\n")) {
            send(channel, piece);
        }

        assertEquals(List.of("CONNECT a.example:443"), judged);
        assertFalse(channel.isOpen());
    }

    @Test
    void aHeadOfExactlyTheLimitIsJudged() {
        EmbeddedChannel channel = channel();
        String start = "CONNECT a.example:443 HTTP/1.1\r\nX: ";
        String head = start + "a".repeat(HEADER_BYTES - start.length() - 4) + "\r\n\r\n";

        send(channel, head);

        assertEquals(HEADER_BYTES, head.length());
        assertEquals(List.of("CONNECT a.example:443"), judged);
    }

    @Test
    void aHeadOverTheLimitIs431() {
        EmbeddedChannel channel = channel();
        String start = "CONNECT a.example:443 HTTP/1.1\r\nX: ";

        String reply = send(channel, start + "a".repeat(HEADER_BYTES - start.length() - 3) + "\r\n\r\n");

        assertReply(reply, "431 Request Header Fields Too Large", "Portcullis-Deny: header-too-large");
        assertTrue(judged.isEmpty());
        assertFalse(channel.isOpen());
    }

    @Test
    void aHeadThatDoesNotCompleteInTimeIs408() {
        EmbeddedChannel channel = channel();
        send(channel, "CONNECT a.example:443 HTTP/1.1\r\n");

        channel.advanceTimeBy(HEADER_TIMEOUT_MILLIS - 1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals("", drain(channel));
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        assertReply(drain(channel), "408 Request Timeout", "Portcullis-Deny: header-timeout");
        assertFalse(channel.isOpen());
        assertEquals("header-timeout", Line.of(decisions.getFirst()).code());
    }

    /** Issue 26 item 7: a FIN before the head is whole frees the connection's place at once. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {"", "CONN", "CONNECT a.example:443 HTTP/1.1\\r\\n", "CONNECT a.example:443 HTTP/1.1\\r\\nHost: a"
            })
    void aClientThatEndsItsInputBeforeItsHeadIsWholeIsClosedAtOnceAsClientClosed(String sent) {
        EmbeddedChannel channel = channel();
        send(channel, unescape(sent));

        channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        channel.runPendingTasks();

        assertEquals("", drain(channel));
        assertFalse(channel.isOpen());
        assertTrue(judged.isEmpty());
        assertEquals("client-closed", Line.of(decisions.getFirst()).code());
    }

    @Test
    void aClientThatEndsItsInputAfterAWholeHeadIsStillAnswered() {
        EmbeddedChannel channel = channel();
        send(channel, "CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n");

        channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        channel.runPendingTasks();

        assertEquals(List.of("CONNECT a.example:443"), judged);
    }

    private static void assertReply(String reply, String status, String header) {
        assertTrue(reply.startsWith("HTTP/1.1 " + status + "\r\n"), reply);
        assertTrue(reply.contains("\r\n" + header + "\r\n"), reply);
        assertTrue(reply.contains("\r\nConnection: close\r\n"), reply);
        String body = reply.substring(reply.indexOf("\r\n\r\n") + 4);
        assertTrue(reply.contains("\r\nContent-Length: " + body.length() + "\r\n"), reply);
        assertTrue(body.endsWith("\n") && body.indexOf('\n') == body.length() - 1, body);
    }

    private static String unescape(String text) {
        return text.replace("\\r", "\r")
                .replace("\\n", "\n")
                .replace("\\0", "\0")
                .replace("\\u0001", "\u0001")
                .replace("\\\\", "\\");
    }
}
