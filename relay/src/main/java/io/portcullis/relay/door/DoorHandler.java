package io.portcullis.relay.door;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.decide.Times;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.HeadReader;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.judge.Judged;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.tunnel.Early;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Optional;

/**
 * One door connection: its request head ({@link HeadReader}) judged by {@link DoorRequest}, then,
 * once {@link GatewayCheck} found the gateway's uid holding its real port on 127.0.0.1, exchanged
 * once with it. The gateway is the door's one destination by design, so the owner check's verdict
 * (which refuses the gateway) is not asked, only who holds the port. The decision line names the
 * door port and, once matched, the route from the policy; nothing the client wrote, so no token
 * can reach a log.
 */
final class DoorHandler extends ChannelInboundHandlerAdapter {
    private final DoorKind kind;
    private final SpawnPolicy policy;
    private final DoorToken token;
    private HeadReader head;
    /** After the head, until the exchange takes the bytes; empty before and after. */
    private Optional<Early> early = Optional.empty();

    DoorHandler(DoorKind kind, SpawnPolicy policy, DoorToken token) {
        this.kind = kind;
        this.policy = policy;
        this.token = token;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        head = new HeadReader(ctx.channel(), kind.headerBytes(), kind.headerTimeoutMillis());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (early.isPresent()) {
            early.get().add(msg);
        } else if (!(msg instanceof ByteBuf bytes)) {
            ReferenceCountUtil.release(msg);
        } else if (head.read(bytes) instanceof HeadReader.Complete complete) {
            ctx.channel().config().setAutoRead(false);
            request(ctx.channel(), complete.head(), complete.after());
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
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
        SpawnPolicy.Door door = policy.door().orElseThrow();
        record.target("door:" + door.port());
        if (policy.network() == SpawnPolicy.Network.NONE) {
            after.release();
            refuse(client, DenyCode.MODE_NONE);
            return;
        }
        switch (DoorRequest.judge(
                request, door, token, kind.bodyLimit(), kind.gateway().port())) {
            case DoorRequest.Refused refused -> {
                after.release();
                refuse(client, refused.code());
            }
            case DoorRequest.Forward forward -> {
                String route = forward.route().method() + " " + forward.route().path();
                record.target("door:" + door.port() + " " + route);
                Early kept = new Early(after, kind.bodyLimit() + Exchange.HELD_SLACK);
                early = Optional.of(kept);
                Times times = new Times();
                kind.tunnels()
                        .open(
                                client,
                                kind.gateway()
                                        .verdict(policy.id(), "door route " + route, times)
                                        .thenApply(verdict -> Judged.alone(verdict, times.took())),
                                Tunnels.Carry.HTTP)
                        .thenAccept(opened -> {
                            early = Optional.empty();
                            Exchange.after(
                                    opened, client, this, forward.outgoing(), request.isHttp11(), kept, kind.limits());
                        });
            }
        }
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
