package io.portcullis.relay.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.HeadReader;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.tunnel.ClientHelloCheck;
import io.portcullis.relay.tunnel.Early;
import io.portcullis.relay.tunnel.Splice;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection on the proxy port (SPEC R6), from its request head to the copy or the exchange
 * that takes its place: a {@code CONNECT host:port} (HTTP/1.1, or HTTP/1.0 as Python's
 * http.client and socat send it) is judged and, when allowed, tunnelled after {@code 200
 * Connection established}; an absolute-form {@code http://} request is read by {@link PlainHttp},
 * judged like a CONNECT to its authority, and exchanged once with the upstream; anything else is
 * {@code 400}. A CONNECT with more than one {@code Host} field is {@code 400} too (SPEC R10):
 * nothing reads its Host, but a head that two parsers could take for two different requests is
 * refused wherever it arrives.
 *
 * <p>One handler for the connection's whole setup, in three states: reading the head, keeping what
 * arrives while the target is judged and dialed ({@link Early}), and passing bytes on to the
 * ClientHello check. The copy ({@link Splice}) or the exchange then takes its place.
 */
final class ProxyHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

    /**
     * What a CONNECT's client may send before its tunnel is up and have it kept: a ClientHello cut
     * into records, or a client that speaks first, with room to spare.
     */
    static final int EARLY_BYTES = 256 * 1024;

    private final ProxyKind kind;
    private final SpawnJudge judge;
    private HeadReader head;
    /** After the head, until the tunnel or the exchange takes the bytes; empty before and after. */
    private Optional<Early> early = Optional.empty();
    /** The ClientHello check sits after this handler: reads go on to it. */
    private boolean passing;

    ProxyHandler(ProxyKind kind, SpawnJudge judge) {
        this.kind = kind;
        this.judge = judge;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        head = new HeadReader(ctx.channel(), kind.headerBytes, kind.headerTimeoutMillis);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (passing) {
            ctx.fireChannelRead(msg);
        } else if (early.isPresent()) {
            early.get().add(msg);
        } else if (!(msg instanceof ByteBuf bytes)) {
            ReferenceCountUtil.release(msg);
        } else {
            switch (head.read(bytes)) {
                case HeadReader.More more -> {}
                case HeadReader.Refused refused -> {}
                case HeadReader.Complete complete -> {
                    ctx.channel().config().setAutoRead(false);
                    request(ctx.channel(), complete.head(), complete.after());
                }
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (passing) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (passing) {
            ctx.fireUserEventTriggered(event);
        } else if (event instanceof ChannelInputShutdownEvent) {
            if (early.isPresent()) {
                early.get().end();
            } else {
                head.inputEnded();
            }
        } else if (!(event instanceof ChannelInputShutdownReadComplete)) {
            ctx.fireUserEventTriggered(event);
        }
    }

    private void request(Channel client, RequestHead request, ByteBuf after) {
        ConnectionRecord record = ConnectionRecord.of(client);
        record.target(request.target());
        record.method(request.method());
        boolean connect = request.method().equals("CONNECT");
        if (connect && request.values("Host").size() > 1) {
            after.release();
            refuse(client, DenyCode.BAD_REQUEST);
        } else if (connect) {
            Early kept = new Early(after, EARLY_BYTES);
            early = Optional.of(kept);
            kind.tunnels
                    .open(client, judge.decide(Request.connect(request.target())), Tunnels.Carry.BYTES)
                    .thenAccept(opened -> tunnel(client, opened, kept));
        } else if (request.target().regionMatches(true, 0, "http://", 0, 7)) {
            plain(client, request, after);
        } else {
            after.release();
            refuse(client, DenyCode.BAD_REQUEST);
        }
    }

    /**
     * A CONNECT's tunnel is up, refused or gone: {@code 200} and the copy, or the refusal. {@code
     * kept} is taken or released (released already when the client left meanwhile).
     */
    private void tunnel(Channel client, Tunnels.Opened opened, Early kept) {
        early = Optional.empty();
        switch (opened) {
            case Tunnels.Gone gone -> kept.release();
            case Tunnels.Refused refused -> {
                kept.release();
                Replies.refuse(client, refused.code(), refused.told());
            }
            case Tunnels.Up up
            when kept.overflowed() -> {
                kept.release();
                up.leftover().release();
                up.upstream().close();
                refuse(client, DenyCode.BAD_REQUEST);
            }
            case Tunnels.Up up -> {
                try {
                    established(client, up, kept.take());
                } catch (RuntimeException e) {
                    Tunnels.broken(client, up, e);
                }
            }
        }
    }

    private void established(Channel client, Tunnels.Up up, ByteBuf first) {
        client.writeAndFlush(ProxyKind.ESTABLISHED.duplicate(), client.voidPromise());
        if (!up.first().clientHello()) {
            Splice.join(client, this, up.upstream(), first, up.leftover(), kind.tunnels.idleMillis());
            return;
        }
        client.flush();
        passing = true;
        ClientHelloCheck.await(client, up.upstream(), first, up.first(), kind.tunnels.helloMillis())
                .thenAccept(hello -> {
                    switch (hello) {
                        case ClientHelloCheck.Passed passed ->
                            Splice.join(
                                    client,
                                    this,
                                    up.upstream(),
                                    passed.held(),
                                    up.leftover(),
                                    kind.tunnels.idleMillis());
                        case ClientHelloCheck.Closed closed -> up.leftover().release();
                    }
                });
    }

    private void plain(Channel client, RequestHead request, ByteBuf after) {
        PlainHttp plain;
        try {
            plain = PlainHttp.of(request);
        } catch (IllegalArgumentException e) {
            log.debug("connection {}: {}", ConnectionRecord.of(client).id(), e.getMessage());
            after.release();
            refuse(client, DenyCode.BAD_REQUEST);
            return;
        }
        ConnectionRecord.of(client).target(plain.uri().authority());
        if (plain.outgoing().declaresMoreThan(kind.limits.requestBytes())) {
            after.release();
            refuse(client, DenyCode.BODY_TOO_LARGE);
            return;
        }
        Early kept = new Early(after, kind.limits.requestBytes() + Exchange.HELD_SLACK);
        early = Optional.of(kept);
        kind.tunnels
                .open(client, judge.decide(Request.http(plain.uri().authority())), Tunnels.Carry.HTTP)
                .thenAccept(opened -> {
                    early = Optional.empty();
                    Exchange.after(opened, client, this, plain.outgoing(), request.isHttp11(), kept, kind.limits);
                });
    }

    private static void refuse(Channel client, DenyCode code) {
        ConnectionRecord.of(client).deny(code);
        Replies.refuse(client, code);
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

    private void release() {
        head.release();
        early.ifPresent(Early::release);
        early = Optional.empty();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }
}
