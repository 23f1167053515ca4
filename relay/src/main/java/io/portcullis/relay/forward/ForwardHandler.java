package io.portcullis.relay.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.tunnel.Tunnels;

/**
 * Serves one forward connection: asks for the verdict on the forward's port, keeps the client's
 * first bytes until the tunnel is up, then gets out of the way. A refused or failed forward is
 * closed without a word (SPEC R17).
 */
final class ForwardHandler extends ChannelInboundHandlerAdapter {
    private final ForwardJudge judge;
    private final int port;
    private final Tunnels tunnels;
    private CompositeByteBuf early;

    ForwardHandler(ForwardJudge judge, int port, Tunnels tunnels) {
        this.judge = judge;
        this.port = port;
        this.tunnels = tunnels;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        early = ctx.alloc().compositeBuffer();
        // Until the tunnel is up, the second reference is the tunnel's: bytes still arriving join it.
        tunnels.open(ctx.channel(), judge.judge(port), early.retain(), this::established, ForwardHandler::refused);
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

    private static void refused(Channel client, DenyCode code) {
        client.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
