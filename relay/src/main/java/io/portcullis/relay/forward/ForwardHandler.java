package io.portcullis.relay.forward;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.tunnel.Early;
import io.portcullis.relay.tunnel.Splice;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.concurrent.TimeUnit;

/**
 * One forward connection: asks for the verdict on the forward's port, keeps the client's first
 * bytes until the tunnel is up ({@link Early}), then the copy ({@link Splice}) takes its place. A
 * refused or failed forward is closed without a word (SPEC R17), in order: the client reads an
 * end, not a reset.
 */
final class ForwardHandler extends ChannelInboundHandlerAdapter {
    private static final long DRAIN_MILLIS = 1000;
    /** What a forward's client may send before its tunnel is up and have it kept. */
    static final int EARLY_BYTES = 256 * 1024;

    private final SpawnJudge judge;
    private final Request request;
    private final Tunnels tunnels;
    private Early early = new Early(Unpooled.EMPTY_BUFFER, EARLY_BYTES);
    private boolean refused;

    ForwardHandler(SpawnJudge judge, Request request, Tunnels tunnels) {
        this.judge = judge;
        this.request = request;
        this.tunnels = tunnels;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        Channel client = ctx.channel();
        client.config().setAutoRead(false);
        tunnels.open(client, judge.decide(request), Tunnels.Carry.BYTES).thenAccept(opened -> tunnel(client, opened));
    }

    private void tunnel(Channel client, Tunnels.Opened opened) {
        switch (opened) {
            case Tunnels.Gone gone -> early.release();
            case Tunnels.Refused refusal -> {
                early.release();
                refused(client);
            }
            case Tunnels.Up up -> {
                try {
                    Splice.join(client, this, up.upstream(), early.take(), up.leftover(), tunnels.idleMillis());
                } catch (RuntimeException e) {
                    Tunnels.broken(client, up, e);
                }
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        early.add(msg);
    }

    /**
     * Ends the output, then closes once the client's input ends (or after a second): closing with
     * the client's bytes unread would reset it, and a refused forward is an orderly close.
     */
    private void refused(Channel client) {
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
        } else if (event instanceof ChannelInputShutdownEvent) {
            early.end();
        } else if (!(event instanceof ChannelInputShutdownReadComplete)) {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        early.release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        early.release();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
