package io.portcullis.relay.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConnectionGateTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final String REQUEST = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void release() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    /** A connection admitted by {@code gate}, its time frozen; the gate's handler alone in its pipeline. */
    private EmbeddedChannel admitted(ConnectionGate gate) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channels.add(channel);
        channel.freezeTime();
        assertTrue(gate.admit(channel));
        channel.pipeline().addLast(gate.exchange());
        return channel;
    }

    /** A connection admitted by {@code gate} with the listeners' codec and aggregator, answered by {@code server}. */
    private EmbeddedChannel served(ConnectionGate gate, Server server) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channels.add(channel);
        channel.freezeTime();
        assertTrue(gate.admit(channel));
        channel.pipeline().addLast(new HttpServerCodec(), gate.exchange(), new HttpObjectAggregator(8192), server);
        return channel;
    }

    private static void elapse(EmbeddedChannel channel, Duration time) {
        channel.advanceTimeBy(time.toMillis(), TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    private static void request(EmbeddedChannel channel) {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/healthz"));
    }

    private static void answer(EmbeddedChannel channel) {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
    }

    /** Bytes from the client; once the connection is closed they reach nothing. */
    private static void send(EmbeddedChannel channel, String bytes) {
        if (!channel.isOpen()) {
            return;
        }
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
    }

    /** What the connection sent, as text. */
    private static String sent(EmbeddedChannel channel) {
        StringBuilder text = new StringBuilder();
        for (Object out; (out = channel.readOutbound()) != null; ) {
            ByteBuf bytes = (ByteBuf) out;
            text.append(bytes.toString(StandardCharsets.US_ASCII));
            bytes.release();
        }
        return text.toString();
    }

    private static List<Integer> statuses(String sent) {
        List<Integer> statuses = new ArrayList<>();
        Matcher status = STATUS.matcher(sent);
        while (status.find()) {
            statuses.add(Integer.parseInt(status.group(1)));
        }
        return statuses;
    }

    /**
     * A listener's handler: counts the requests it is handed and answers each at once with
     * {@code 200} (or, {@link #holding()}, when the test calls {@link #answer()}).
     */
    private static final class Server extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final boolean hold;
        private ChannelHandlerContext context;
        private int requests;

        private Server(boolean hold) {
            this.hold = hold;
        }

        static Server answering() {
            return new Server(false);
        }

        static Server holding() {
            return new Server(true);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            context = ctx;
            requests++;
            if (!hold) {
                answer();
            }
        }

        void answer() {
            DefaultFullHttpResponse ok = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1,
                    HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("ok\n", StandardCharsets.US_ASCII));
            HttpUtil.setContentLength(ok, 3);
            HttpUtil.setKeepAlive(ok, true);
            context.writeAndFlush(ok);
        }
    }

    /**
     * What a client sends (each element one read), and what it gets: how many requests reached the
     * listener's handler, the statuses sent, and whether the connection is still open.
     */
    record Exchange(String name, List<String> reads, int handled, List<Integer> statuses, boolean open) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Exchange> exchanges() {
        return Stream.of(
                new Exchange(
                        "a request asking for keep-alive -> one answer, then closed",
                        List.of("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n"),
                        1,
                        List.of(200),
                        false),
                new Exchange(
                        "three requests in one read (pipelined) -> the first answered, then closed",
                        List.of(REQUEST.repeat(3)),
                        1,
                        List.of(200),
                        false),
                new Exchange(
                        "a request and the start of the next in one read -> one answer, then closed",
                        List.of(REQUEST + "GET /metrics HT"),
                        1,
                        List.of(200),
                        false),
                new Exchange(
                        "100-continue, then the body -> the interim 100 is not the answer",
                        List.of(
                                "POST /reload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
                                "{}"),
                        1,
                        List.of(100, 200),
                        false),
                new Exchange(
                        "a body over the aggregator's limit, keep-alive -> 413, then closed",
                        List.of("POST /spawns HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\n", "x".repeat(4000)),
                        0,
                        List.of(413),
                        false));
    }

    /**
     * Issue 26, the attack on #4's fix: pipelined requests piled answers up without end; each
     * connection now carries one exchange.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("exchanges")
    void eachConnectionCarriesOneExchange(Exchange exchange) {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        Server server = Server.answering();
        EmbeddedChannel channel = served(gate, server);

        exchange.reads().forEach(read -> send(channel, read));

        String sent = sent(channel);
        assertEquals(exchange.handled(), server.requests, sent);
        assertEquals(exchange.statuses(), statuses(sent), sent);
        assertEquals(exchange.open(), channel.isOpen(), sent);
        String finalHead = sent.substring(sent.lastIndexOf("HTTP/1.1 "));
        assertTrue(
                finalHead.toLowerCase(Locale.ROOT).contains("connection: close\r\n"),
                "the answer says it is the last: " + sent);
        assertEquals(0, gate.held());
    }

    @Test
    void onceARequestHasArrivedNothingMoreIsReadUntilTheConnectionEnds() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        Server server = Server.holding();
        EmbeddedChannel channel = served(gate, server);
        send(channel, REQUEST);

        assertFalse(channel.config().isAutoRead(), "reading stops at the request");
        send(channel, REQUEST + REQUEST);
        server.answer();

        assertEquals(1, server.requests, "what arrived anyway is dropped");
        assertEquals(List.of(200), statuses(sent(channel)));
        assertFalse(channel.isOpen());
    }

    /** Issue 26 #4: a byte every few seconds kept a connection for ever; the deadline is not reset by bytes. */
    @Test
    void aRequestTrickledAByteAtATimeIsClosedAtTheDeadline() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        EmbeddedChannel channel = new EmbeddedChannel();
        channels.add(channel);
        channel.freezeTime();
        assertTrue(gate.admit(channel));
        channel.pipeline().addLast(new HttpServerCodec(), gate.exchange(), new HttpObjectAggregator(8192));
        byte[] head = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

        for (int i = 0; i < 3; i++) {
            channel.writeInbound(Unpooled.wrappedBuffer(head, i, 1));
            elapse(channel, Duration.ofSeconds(3));
        }
        assertTrue(channel.isOpen(), "9 s in");
        channel.writeInbound(Unpooled.wrappedBuffer(head, 3, 1));
        elapse(channel, Duration.ofSeconds(1));

        assertFalse(channel.isOpen(), "10 s in");
        assertEquals(0, gate.held());
    }

    @Test
    void theDaemonsOwnTimeIsNotTheClientsAndTheAnswerEndsTheConnection() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        EmbeddedChannel channel = admitted(gate);
        elapse(channel, Duration.ofSeconds(9));
        request(channel);

        elapse(channel, Duration.ofSeconds(60));
        assertTrue(channel.isOpen(), "the daemon's own time is not the client's");
        answer(channel);

        assertFalse(channel.isOpen(), "closed once the answer is sent");
        assertEquals(0, gate.held());
    }

    @Test
    void atTheCapTheConnectionThatWaitedLongestForARequestMakesRoom() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(3, DEADLINE));
        EmbeddedChannel first = admitted(gate);
        EmbeddedChannel second = admitted(gate);
        EmbeddedChannel third = admitted(gate);
        request(first);

        EmbeddedChannel fourth = admitted(gate);

        assertTrue(first.isOpen(), "being answered");
        assertFalse(second.isOpen(), "waited longest");
        assertTrue(third.isOpen());
        assertTrue(fourth.isOpen());
        assertEquals(3, gate.held());
    }

    @Test
    void atTheCapWithEveryConnectionBeingAnsweredANewOneIsClosedAtOnce() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(2, DEADLINE));
        EmbeddedChannel first = admitted(gate);
        EmbeddedChannel second = admitted(gate);
        request(first);
        request(second);
        EmbeddedChannel refused = new EmbeddedChannel();
        channels.add(refused);

        assertFalse(gate.admit(refused));

        assertFalse(refused.isOpen());
        assertTrue(first.isOpen());
        assertTrue(second.isOpen());
        answer(first);
        EmbeddedChannel next = admitted(gate);
        assertFalse(first.isOpen(), "answered, so closed");
        assertTrue(second.isOpen());
        assertTrue(next.isOpen());
    }

    @Test
    void aClosedConnectionFreesItsPlace() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(1, DEADLINE));
        EmbeddedChannel first = admitted(gate);
        request(first);

        first.close();
        EmbeddedChannel second = admitted(gate);

        assertTrue(second.isOpen());
        assertEquals(1, gate.held());
    }

    @Test
    void limitsCheckThemselves() {
        for (int connections : new int[] {0, 33}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> new ListenerLimits(connections, DEADLINE));
            assertEquals("connections: " + connections + " (expected: 1-32)", e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new ListenerLimits(1, Duration.ZERO));
    }
}
