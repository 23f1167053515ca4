package io.portcullis.relay.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.portcullis.entry.wire.Preamble;
import io.portcullis.entry.wire.PreambleVectors;
import io.portcullis.entry.wire.PreambleVectors.Vector;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.observe.Decision;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PreambleDecoderTest {
    private static final byte[] CLIENT_BYTES = "CONNECT a:443 HTTP/1.1\r\n".getBytes();
    private static final long TIMEOUT_MILLIS = 1000;

    private final List<Decision> decisions = new ArrayList<>();
    private final List<Preamble> routed = new ArrayList<>();
    private final ByteBuf received = Unpooled.buffer();

    static List<Vector> valid() {
        return PreambleVectors.valid();
    }

    static List<Vector> invalid() {
        return PreambleVectors.invalid();
    }

    /** A spawn whose ports are exactly the vector's kind and port. */
    private static SpawnPorts portsFor(Preamble preamble) {
        return switch (preamble.kind()) {
            case PROXY -> new SpawnPorts(preamble.port(), Set.of(), 0);
            case FORWARD -> new SpawnPorts(preamble.port() == 1 ? 2 : 1, Set.of(preamble.port()), 0);
            case DOOR -> new SpawnPorts(preamble.port() == 1 ? 2 : 1, Set.of(), preamble.port());
        };
    }

    private EmbeddedChannel channel(SpawnPorts ports) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime(); // only advanceTimeBy moves the preamble timeout's clock
        ConnectionRecord.attach(channel, "studio", 7, InstantSource.system(), decisions::add);
        channel.pipeline().addLast("preamble", new PreambleDecoder(ports, this::route, TIMEOUT_MILLIS));
        return channel;
    }

    private ChannelHandler route(Channel channel, Preamble preamble) {
        routed.add(preamble);
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf bytes = (ByteBuf) msg;
                received.writeBytes(bytes);
                bytes.release();
            }
        };
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("valid")
    void aVectorThatNamesThisSpawnsPortRoutesItsKindAndPassesTheRestOn(Vector vector) {
        EmbeddedChannel channel = channel(portsFor(vector.expected()));

        channel.writeInbound(Unpooled.wrappedBuffer(vector.bytes(), CLIENT_BYTES));

        assertEquals(List.of(vector.expected()), routed);
        assertArrayEquals(CLIENT_BYTES, ByteBufUtil.getBytes(received));
        assertTrue(channel.isOpen());
        assertNull(channel.pipeline().get("preamble"));
        channel.finishAndReleaseAll();
        received.release();
        assertEquals(
                vector.expected().kind().name().toLowerCase(),
                decisions.getFirst().kind());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("valid")
    void aValidVectorForAnotherPortOfTheSameKindIsRefused(Vector vector) {
        Preamble expected = vector.expected();
        int other = expected.port() == 65535 ? 1 : expected.port() + 1;
        EmbeddedChannel channel = channel(portsFor(new Preamble(expected.kind(), other)));

        channel.writeInbound(Unpooled.wrappedBuffer(vector.bytes()));

        assertRefused(channel);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("invalid")
    void anInvalidVectorIsRefused(Vector vector) {
        EmbeddedChannel channel = channel(new SpawnPorts(39080, Set.of(5000), 3001));

        channel.writeInbound(Unpooled.wrappedBuffer(vector.bytes(), CLIENT_BYTES));

        assertRefused(channel);
    }

    @Test
    void aPreambleInSingleBytesIsRead() {
        Preamble preamble = new Preamble(Preamble.Kind.FORWARD, 5000);
        EmbeddedChannel channel = channel(new SpawnPorts(39080, Set.of(5000), 0));

        for (byte b : preamble.encode()) {
            assertTrue(routed.isEmpty());
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }

        assertEquals(List.of(preamble), routed);
        channel.finishAndReleaseAll();
        received.release();
    }

    @Test
    void aPreambleThatDoesNotCompleteInTimeIsRefused() {
        EmbeddedChannel channel = channel(new SpawnPorts(39080, Set.of(), 0));
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'P', 'C', 'L'}));

        channel.advanceTimeBy(TIMEOUT_MILLIS - 1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen());
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        assertRefused(channel);
    }

    private void assertRefused(EmbeddedChannel channel) {
        assertFalse(channel.isOpen());
        assertTrue(routed.isEmpty());
        assertEquals(0, received.readableBytes());
        received.release();
        assertEquals(1, decisions.size());
        Decision decision = decisions.getFirst();
        assertEquals("deny", decision.verdict());
        assertEquals("bad-preamble", decision.code());
        assertEquals("unknown", decision.kind());
        assertEquals(7, decision.connection());
        channel.finishAndReleaseAll();
    }
}
