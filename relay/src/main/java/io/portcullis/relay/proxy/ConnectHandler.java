package io.portcullis.relay.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Locale;
import java.util.Objects;

/**
 * Answers the one request head of a proxy connection: a {@code CONNECT host:port HTTP/1.1} is
 * judged and, when allowed, tunnelled after {@code 200 Connection established}; an absolute-form
 * {@code http://} request is refused with {@code plain-http-not-yet} for now; anything else is
 * {@code 400}.
 */
final class ConnectHandler extends SimpleChannelInboundHandler<Head> {
    private final ConnectJudge judge;
    private final Tunnels tunnels;

    ConnectHandler(ConnectJudge judge, Tunnels tunnels) {
        this.judge = Objects.requireNonNull(judge, "judge");
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Head head) {
        ConnectionRecord record = ConnectionRecord.of(ctx.channel());
        record.target(head.target);
        if (!head.version.equals("HTTP/1.1")) {
            refuse(ctx.channel(), DenyCode.BAD_REQUEST);
        } else if (head.method.equals("CONNECT")) {
            ByteBuf early = head.content().retain();
            tunnels.open(ctx.channel(), judge.judge(head.target), early, this::established, ConnectHandler::refuse);
        } else if (head.target.toLowerCase(Locale.ROOT).startsWith("http://")) {
            refuse(ctx.channel(), DenyCode.PLAIN_HTTP_NOT_YET);
        } else {
            refuse(ctx.channel(), DenyCode.BAD_REQUEST);
        }
    }

    private void established(Channel client) {
        client.pipeline().remove(this);
        client.writeAndFlush(Replies.established());
    }

    private static void refuse(Channel client, DenyCode code) {
        ConnectionRecord.of(client).deny(code);
        Replies.refuse(client, code);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
