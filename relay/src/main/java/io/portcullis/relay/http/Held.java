package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.observe.ConnectionRecord;

/**
 * Keeps what a client sends after its request head while the upstream is judged and dialed, in
 * order after the bytes read with the head, and whether the client ended its input meanwhile; the
 * exchange takes both when it starts. Auto-read is off then, but a client's FIN makes the
 * transport read everything the kernel holds at once (epoll's EPOLLRDHUP), whatever auto-read
 * says: without this handler those bytes, the rest of the body, would be dropped, and the upstream
 * would wait for a body that never comes. At most {@code limit} bytes are kept; past that the
 * rest is dropped and the exchange refuses the request.
 */
final class Held extends ChannelInboundHandlerAdapter {
    private final long limit;
    private CompositeByteBuf bytes;
    private boolean ended;
    private boolean overflowed;

    Held(ByteBuf early, long limit) {
        this.limit = limit;
        this.bytes = early.alloc().compositeBuffer().addComponent(true, early);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf read) || overflowed || bytes == null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (bytes.readableBytes() + (long) read.readableBytes() > limit) {
            overflowed = true;
            read.release();
            return;
        }
        bytes.addComponent(true, read);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Nothing is asked to be read while the upstream is dialed.
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            ended = true;
        } else if (!(event instanceof ChannelInputShutdownReadComplete)) {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    /** Everything kept, in order; the caller releases it. Called once. */
    ByteBuf take() {
        ByteBuf taken = bytes;
        bytes = null;
        return taken;
    }

    /** Whether the client ended its input while the upstream was dialed. */
    boolean ended() {
        return ended;
    }

    /** Whether more than the limit arrived, so that what is kept is not the whole of it. */
    boolean overflowed() {
        return overflowed;
    }

    private void release() {
        if (bytes != null) {
            bytes.release();
            bytes = null;
        }
    }
}
