package io.portcullis.relay.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.decide.ConnectionJudge;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.concurrent.TimeUnit;

/**
 * Serves one forward connection: asks for the verdict on the forward's port, keeps the client's
 * first bytes until the tunnel is up, then gets out of the way. A refused or failed forward is
 * closed without a word (SPEC R17), in order: the client reads an end, not a reset.
 */
final class ForwardHandler extends ChannelInboundHandlerAdapter {
    private static final long DRAIN_MILLIS = 1000;

    private final ConnectionJudge judge;
    private final Request request;
    private final Tunnels tunnels;
    private CompositeByteBuf early;
    private boolean refused;

    ForwardHandler(ConnectionJudge judge, Request request, Tunnels tunnels) {
        this.judge = judge;
        this.request = request;
        this.tunnels = tunnels;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        early = ctx.alloc().compositeBuffer();
        // Until the tunnel is up, the second reference is the tunnel's: bytes still arriving join it.
        tunnels.open(ctx.channel(), judge.decide(request), early.retain(), this::established, this::refused);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        early.release();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes && early.refCnt() > 1) {
            early.addComponent(true, bytes);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void established(Channel client) {
        client.pipeline().remove(this);
    }

    /**
     * Ends the output, then closes once the client's input ends (or after a second): closing with
     * the client's bytes unread would reset it, and a refused forward is an orderly close.
     */
    private void refused(Channel client, DenyCode code, String told) {
        refused = true;
        if (!(client instanceof DuplexChannel duplex) || !client.isActive()) {
            client.close();
            return;
        }
        client.eventLoop().schedule(() -> client.close(), DRAIN_MILLIS, TimeUnit.MILLISECONDS);
        duplex.shutdownOutput();
        client.config().setAutoRead(true);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (refused && event instanceof ChannelInputShutdownEvent) {
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
