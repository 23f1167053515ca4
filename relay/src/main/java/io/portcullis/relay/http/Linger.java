package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A lingering close (SPEC R17): the relay's own answer is written, the write side shut, and what the
 * client still sends is read and dropped until the client's end, {@link #MILLIS} from the refusal
 * or {@link #BYTES}, whichever comes first; then the close. A close with unread bytes in the receive buffer sends a
 * reset instead of a FIN, and the client's stack drops what it had not read yet: the answer.
 *
 * <p>Sits first in the pipeline, so nothing the client sends after the refusal reaches another
 * handler. The connection keeps whatever budget place it holds until the close.
 */
final class Linger extends ChannelInboundHandlerAdapter {
    /** The longest a refused client is read after its answer. */
    static final long MILLIS = 2000;
    /** The most bytes read and dropped after the answer. */
    static final int BYTES = 64 * 1024;

    private long dropped;
    private boolean written;
    private boolean ended;

    private Linger() {}

    /**
     * Writes {@code answer} to {@code channel} and closes it, lingering. A second answer on the
     * same channel is dropped: the first one stands.
     */
    static void close(Channel channel, ByteBuf answer) {
        if (channel.pipeline().get(Linger.class) != null) {
            answer.release();
            return;
        }
        channel.config().setAutoRead(false);
        Linger linger = new Linger();
        channel.pipeline().addFirst("linger", linger);
        // From the refusal on, not from the write: a client that reads nothing cannot hold the write open either.
        Future<?> deadline = channel.eventLoop().schedule(() -> channel.close(), MILLIS, TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(closed -> deadline.cancel(false));
        channel.writeAndFlush(answer).addListener((ChannelFuture done) -> linger.written(done));
    }

    private void written(ChannelFuture done) {
        Channel channel = done.channel();
        written = true;
        if (!done.isSuccess()
                || ended
                || !channel.isActive()
                || !(channel instanceof DuplexChannel duplex)
                || duplex.isInputShutdown()) {
            channel.close();
            return;
        }
        duplex.shutdownOutput().addListener(shut -> {
            if (shut.isSuccess()) {
                channel.config().setAutoRead(true);
            } else {
                channel.close();
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            dropped += bytes.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (dropped > BYTES) {
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Nothing read here goes on.
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        ReferenceCountUtil.release(event);
        if (event instanceof ChannelInputShutdownEvent || event instanceof ChannelInputShutdownReadComplete) {
            if (written) {
                ctx.close();
            } else {
                ended = true;
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // The client reset a refused connection: its decision is settled already.
        ctx.close();
    }
}
