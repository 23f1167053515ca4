package io.portcullis.relay.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The wake-ups of one handed-over socket's channel that accepted or read nothing, first in its
 * pipeline, where it counts what the socket gave (accepted connections, datagrams). A socket that
 * the kernel keeps reporting ready while it has nothing to give turns a level-triggered event
 * loop at full speed; past {@link #MAX_PER_SECOND} such wake-ups in one second the socket is taken
 * to be in such a state, whatever state it is, and its channel is closed. An honest socket wakes
 * its loop with nothing to give seldom: a datagram that its read drops (a bad checksum), a loop
 * whose reading was paused waking once to stop asking. Its event loop's thread only.
 */
final class EmptyWakeups extends ChannelInboundHandlerAdapter {
    /** How many wake-ups with nothing to accept or read one second may hold before the socket is closed. */
    static final int MAX_PER_SECOND = 1000;

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier nanoTime;
    private long given;
    private int empty;
    private long since;

    EmptyWakeups(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        given++;
        ctx.fireChannelRead(message);
    }

    /** How many connections or datagrams the socket gave so far. */
    long given() {
        return given;
    }

    /** Counts a wake-up that gave nothing; true once more than {@link #MAX_PER_SECOND} fell in one second. */
    boolean tooMany() {
        long now = nanoTime.getAsLong();
        if (empty == 0 || now - since >= SECOND) {
            since = now;
            empty = 0;
        }
        return ++empty > MAX_PER_SECOND;
    }
}
