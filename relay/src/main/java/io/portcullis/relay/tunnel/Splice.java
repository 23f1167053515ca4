package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies bytes both ways between a client and its upstream, with backpressure: each side reads
 * its next chunk only after the previous one was written to the other side. An end of input on
 * one side becomes a half-close of the other; when both inputs have ended, or either side
 * closes, or no byte moved either way for the idle time, both close.
 *
 * <p>A side that fails (a reset, or another I/O error on read or write) is never passed on as an
 * orderly end, which would make a cut-off download look whole: the other side is reset too
 * (SO_LINGER 0, then close), and the decision line says which side it was (SPEC R17).
 */
public final class Splice {
    private static final Logger log = LoggerFactory.getLogger(Splice.class);

    /**
     * The largest read of a tunnel's side: 128 KiB, twice Netty's default. A side reads its next
     * chunk only once the last was written to the other side, so a busy tunnel holds at most one
     * such buffer per direction (256 KiB; the relay's default connection budget, 16,384, bounds all
     * of them at 2 GiB, against 1 GiB before), and a bulk copy makes half the reads and writes
     * (docs/benchmarks.md: one tunnel's bulk rate rose by a tenth or more, never fell). Reads start
     * at 2 KiB and grow only while they fill the buffer, so a request/response tunnel stays small.
     */
    static final int MAX_READ = 128 * 1024;

    /** Shared: each channel takes its own handle from it. */
    private static final AdaptiveRecvByteBufAllocator READS = new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ);

    private final Channel client;
    private final Channel upstream;
    private final ConnectionRecord record;
    private final long connection;
    private final long idleMillis;
    private int inputsEnded;
    private boolean closing;
    /** When bytes last moved, by {@link System#nanoTime()}: a read, or a write that finished. */
    private long lastMoved = System.nanoTime();

    private final WriteProgress clientWrites = new WriteProgress();
    private final WriteProgress upstreamWrites = new WriteProgress();

    private Future<?> idle;

    private Splice(Channel client, Channel upstream, ConnectionRecord record, long idleMillis) {
        this.client = client;
        this.upstream = upstream;
        this.record = record;
        this.connection = record.id();
        this.idleMillis = idleMillis;
        // Run on this loop, so never before the splice is whole.
        this.idle = client.eventLoop().schedule(this::idleCheck, idleMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts copying. Both channels must be on the same event loop, with auto-read off and
     * half-closure allowed; the copier takes {@code replaced}'s place in the client's pipeline (the
     * kind's handler, done with), and the upstream has no handler yet. {@code up} (client bytes read
     * before the tunnel was up) goes upstream first and {@code down} (upstream bytes read before it,
     * the target's first through an upstream proxy) to the client first; both possibly empty, and
     * released here.
     */
    public static void join(
            Channel client, ChannelHandler replaced, Channel upstream, ByteBuf up, ByteBuf down, long idleMillis) {
        if (client.eventLoop() != upstream.eventLoop()) {
            up.release();
            down.release();
            throw new IllegalArgumentException("upstream: " + upstream + " (expected: on the client's event loop)");
        }
        ConnectionRecord record = ConnectionRecord.of(client);
        Splice splice = new Splice(client, upstream, record, idleMillis);
        client.config().setRecvByteBufAllocator(READS);
        upstream.config().setRecvByteBufAllocator(READS);
        client.pipeline().replace(replaced, "splice", splice.new Copier(upstream, record::up));
        upstream.pipeline().addLast("splice", splice.new Copier(client, record::down));
        if (down.isReadable()) {
            record.down(down.readableBytes());
            client.writeAndFlush(down).addListener(splice.readNextOr(upstream, client));
        } else {
            down.release();
            upstream.read();
        }
        // The client may have ended its input before the tunnel was up; that end is not read again.
        boolean clientEnded = client instanceof DuplexChannel duplex && duplex.isInputShutdown();
        if (up.isReadable()) {
            record.up(up.readableBytes());
            upstream.writeAndFlush(up)
                    .addListener(clientEnded ? splice.endOr(upstream) : splice.readNextOr(client, upstream));
        } else {
            up.release();
            if (clientEnded) {
                splice.inputEnded(upstream);
            } else {
                client.read();
            }
        }
    }

    /**
     * The idle time (SPEC R16): no byte moved either way since the last look closes both; else the
     * next look is due when the idle time runs out from the last bytes moved. A read, a finished
     * write, and a write that went further since the last look (a slow reader taking part of a
     * buffer) are all bytes moving; a write that waits on a peer that reads nothing is not.
     */
    private void idleCheck() {
        if (closing) {
            return;
        }
        if (clientWrites.wentOn(client) | upstreamWrites.wentOn(upstream)) {
            lastMoved = System.nanoTime();
        }
        long quiet = System.nanoTime() - lastMoved;
        long idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
        if (quiet >= idleNanos) {
            log.debug("connection {}: idle, closing", connection);
            closeNow();
            return;
        }
        idle = client.eventLoop().schedule(this::idleCheck, Math.max(1, idleNanos - quiet), TimeUnit.NANOSECONDS);
    }

    /**
     * Where one side's writes stood at the last look: the oldest write still queued here and how
     * far it went, and the bytes the kernel holds for the peer unacknowledged. A peer that reads
     * slowly drains the kernel's buffers (megabytes on loopback) long before a write queued here
     * goes any further, so both are looked at.
     */
    private static final class WriteProgress {
        /** The head when nothing is queued. */
        private static final Object NOTHING = new Object();

        private Object head = NOTHING;
        private long progress;
        private int unacknowledged;

        /** Whether this side's writes went on since the last look. */
        boolean wentOn(Channel channel) {
            ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
            Object current = buffer == null ? NOTHING : Objects.requireNonNullElse(buffer.current(), NOTHING);
            long written = buffer == null ? 0 : buffer.currentProgress();
            int inKernel = unacknowledged(channel, unacknowledged);
            boolean wentOn = current != head || written != progress || inKernel != unacknowledged;
            head = current;
            progress = written;
            unacknowledged = inKernel;
            return wentOn;
        }

        /** The kernel's unacknowledged bytes, or {@code before} where they cannot be had: no movement. */
        private static int unacknowledged(Channel channel, int before) {
            if (channel.isOpen() && channel instanceof UnixChannel unix && unix.fd() instanceof Socket socket) {
                try {
                    return Posix.unacknowledged(socket.intValue());
                } catch (Posix.Failure | RuntimeException e) {
                    // An idle check that threw would schedule no next one: the tunnel would never close.
                    return before;
                }
            }
            return before;
        }
    }

    private ChannelFutureListener endOr(Channel peer) {
        return written -> {
            if (written.isSuccess()) {
                inputEnded(peer);
            } else {
                failed(peer, written.cause());
            }
        };
    }

    /** After a write to {@code target} of what {@code source} read. */
    private ChannelFutureListener readNextOr(Channel source, Channel target) {
        return written -> {
            if (written.isSuccess()) {
                lastMoved = System.nanoTime();
                source.read();
            } else {
                failed(target, written.cause());
            }
        };
    }

    /**
     * {@code side} failed: an I/O error is passed on to the other side as a reset and recorded;
     * anything else (a write after close) just closes both.
     */
    private void failed(Channel side, Throwable cause) {
        // A write to a channel already closed is no failure of that side's peer.
        if (closing || !(cause instanceof IOException) || cause instanceof ClosedChannelException) {
            closeBoth();
            return;
        }
        closing = true;
        idle.cancel(false);
        if (side == upstream) {
            record.upstreamReset();
        } else {
            record.clientReset();
        }
        side.close();
        reset(side == upstream ? client : upstream);
    }

    /** Closes with a TCP reset: SO_LINGER 0 makes the kernel send RST instead of FIN. */
    private static void reset(Channel channel) {
        if (channel.isActive()) {
            try {
                channel.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException e) {
                // the channel closed meanwhile; closing it again below is harmless
            }
        }
        channel.close();
    }

    private void inputEnded(Channel peer) {
        // After a read error netty also reports the end of input; the reset is already under way.
        if (closing) {
            return;
        }
        inputsEnded++;
        if (inputsEnded == 2 || !(peer instanceof DuplexChannel duplex)) {
            closeBoth();
            return;
        }
        peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(flushed -> {
            if (flushed.isSuccess()) {
                // Nothing more goes to peer, so the end of its own input ends the tunnel: netty then
                // closes it at once instead of shutting its input down first (a shutdown(2) that fails
                // with ENOTCONN once both ends have sent FIN, and an exception built per tunnel).
                peer.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
                shutdownOutput(duplex);
            } else {
                closeBoth();
            }
        });
    }

    /**
     * Sends FIN on {@code channel}, which has nothing left to write. On a native socket that is
     * shutdown(2) itself: netty's own half-close builds an exception with its stack for the writes
     * it might have to fail, a few microseconds per tunnel, and none can be pending here. Netty's
     * way when the socket refuses, or on NIO.
     */
    private static void shutdownOutput(DuplexChannel channel) {
        if (channel instanceof UnixChannel unix && unix.fd() instanceof Socket socket) {
            try {
                socket.shutdown(false, true);
                return;
            } catch (IOException | RuntimeException e) {
                // netty's shutdown below reports it the usual way
            }
        }
        channel.shutdownOutput();
    }

    /** Once: both sides' inactive events and the second end of input all lead here. */
    private void closeBoth() {
        if (closing) {
            return;
        }
        closing = true;
        idle.cancel(false);
        flushAndClose(client);
        flushAndClose(upstream);
    }

    /**
     * Closes both sides without waiting for what they still have to write: nothing moved for the
     * idle time, so a flush (of the last bytes, or of a close already begun) would wait on a peer
     * that does not read.
     */
    private void closeNow() {
        closing = true;
        idle.cancel(false);
        client.close();
        upstream.close();
    }

    /**
     * Closes once what the channel still has to write is flushed, or after the idle time: once the
     * other side is gone no idle handler watches this one, and a peer that stops reading must not
     * hold it open.
     */
    private void flushAndClose(Channel channel) {
        ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
        // Nothing left to write (or no output left to write to): no flush to wait for, nor a deadline for it.
        if (!channel.isActive() || pending == null || pending.totalPendingWriteBytes() == 0) {
            channel.close();
            return;
        }
        Future<?> deadline = channel.eventLoop().schedule(() -> channel.close(), idleMillis, TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(closed -> deadline.cancel(false));
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    /** Copies what its channel reads to the peer. */
    private final class Copier extends ChannelInboundHandlerAdapter {
        private final Channel peer;
        private final LongConsumer counter;

        Copier(Channel peer, LongConsumer counter) {
            this.peer = peer;
            this.counter = counter;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf bytes) {
                counter.accept(bytes.readableBytes());
            }
            lastMoved = System.nanoTime();
            peer.writeAndFlush(msg).addListener(readNextOr(ctx.channel(), peer));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof ChannelInputShutdownEvent) {
                inputEnded(peer);
            } else {
                ctx.fireUserEventTriggered(event);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closeBoth();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug(
                    "connection {}: {} side failed: {}",
                    connection,
                    ctx.channel() == client ? "client" : "upstream",
                    cause.toString());
            failed(ctx.channel(), cause);
        }
    }
}
