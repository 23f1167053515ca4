package io.portcullis.relay.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionGateTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

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

    /** Issue 26 #4: a byte every few seconds kept a connection for ever; the deadline is not reset by bytes. */
    @Test
    void aRequestTrickledAByteAtATimeIsClosedAtTheDeadline() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        EmbeddedChannel channel = new EmbeddedChannel();
        channels.add(channel);
        channel.freezeTime();
        assertTrue(gate.admit(channel));
        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192), gate.exchange());
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
    void aRequestBeingAnsweredWaitsForItsAnswerThenTheNextWaitHasTheDeadline() {
        ConnectionGate gate = new ConnectionGate("test", new ListenerLimits(4, DEADLINE));
        EmbeddedChannel channel = admitted(gate);
        elapse(channel, Duration.ofSeconds(9));
        request(channel);

        elapse(channel, Duration.ofSeconds(60));
        assertTrue(channel.isOpen(), "the daemon's own time is not the client's");
        answer(channel);
        elapse(channel, Duration.ofSeconds(9));
        assertTrue(channel.isOpen(), "9 s after the answer");
        elapse(channel, Duration.ofSeconds(1));

        assertFalse(channel.isOpen(), "the keep-alive wait ends 10 s after the answer");
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
        assertFalse(first.isOpen(), "answered and waiting again, so the longest waiting");
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
