package io.portcullis.relay.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.portcullis.relay.decide.ConnectionJudge;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.Head;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the one request head of a proxy connection: a {@code CONNECT host:port} (HTTP/1.1, or
 * HTTP/1.0 as Python's http.client and socat send it) is
 * judged and, when allowed, tunnelled after {@code 200 Connection established}; an absolute-form
 * {@code http://} request is read by {@link PlainHttp}, judged like a CONNECT to its authority,
 * and exchanged once with the upstream; anything else is {@code 400}. A CONNECT with more than
 * one {@code Host} field is {@code 400} too (SPEC R10): nothing reads its Host, but a head that
 * two parsers could take for two different requests is refused wherever it arrives.
 */
final class ConnectHandler extends SimpleChannelInboundHandler<Head> {
    private static final Logger log = LoggerFactory.getLogger(ConnectHandler.class);

    private final ConnectionJudge judge;
    private final Tunnels tunnels;
    private final Exchange.Limits limits;

    ConnectHandler(ConnectionJudge judge, Tunnels tunnels, Exchange.Limits limits) {
        this.judge = Objects.requireNonNull(judge, "judge");
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Head head) {
        RequestHead request = head.head();
        ConnectionRecord.of(ctx.channel()).target(request.target());
        ConnectionRecord.of(ctx.channel()).method(request.method());
        if (request.method().equals("CONNECT") && request.values("Host").size() > 1) {
            refuse(ctx.channel(), DenyCode.BAD_REQUEST);
        } else if (request.method().equals("CONNECT")) {
            ByteBuf early = head.content().retain();
            tunnels.open(
                    ctx.channel(),
                    judge.decide(Request.connect(request.target())),
                    early,
                    this::established,
                    ConnectHandler::refused);
        } else if (request.target().regionMatches(true, 0, "http://", 0, 7)) {
            plain(ctx.channel(), request, head.content());
        } else {
            refuse(ctx.channel(), DenyCode.BAD_REQUEST);
        }
    }

    private void plain(Channel client, RequestHead request, ByteBuf after) {
        PlainHttp plain;
        try {
            plain = PlainHttp.of(request);
        } catch (IllegalArgumentException e) {
            log.debug("connection {}: {}", ConnectionRecord.of(client).id(), e.getMessage());
            refuse(client, DenyCode.BAD_REQUEST);
            return;
        }
        ConnectionRecord.of(client).target(plain.uri().authority());
        if (plain.outgoing().declaresMoreThan(limits.requestBytes())) {
            refuse(client, DenyCode.BODY_TOO_LARGE);
            return;
        }
        tunnels.connect(
                client,
                judge.decide(Request.http(plain.uri().authority())),
                Exchange.after(client, this, plain.outgoing(), request.isHttp11(), after.retain(), limits));
    }

    private void established(Channel client) {
        client.pipeline().remove(this);
        client.writeAndFlush(Replies.established());
    }

    private static void refuse(Channel client, DenyCode code) {
        ConnectionRecord.of(client).deny(code);
        Replies.refuse(client, code);
    }

    /** A refusal the tunnel settled in the record already. */
    private static void refused(Channel client, DenyCode code, String told) {
        Replies.refuse(client, code, told);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
