package io.portcullis.relay.door;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.Head;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/**
 * Serves one door request: judged by {@link DoorRequest}, then, once {@link GatewayCheck} found
 * the gateway's uid holding its real port on 127.0.0.1, exchanged once with it. The gateway is the
 * door's one destination by design, so the owner check's verdict (which refuses the gateway) is
 * not asked, only who holds the port. The decision line names the door port and, once matched,
 * the route from the policy; nothing the client wrote, so no token can reach a log.
 */
final class DoorHandler extends SimpleChannelInboundHandler<Head> {
    private final DoorKind kind;
    private final SpawnPolicy policy;
    private final DoorToken token;

    DoorHandler(DoorKind kind, SpawnPolicy policy, DoorToken token) {
        this.kind = kind;
        this.policy = policy;
        this.token = token;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Head head) {
        Channel client = ctx.channel();
        ConnectionRecord record = ConnectionRecord.of(client);
        SpawnPolicy.Door door = policy.door().orElseThrow();
        record.target("door:" + door.port());
        if (policy.network() == SpawnPolicy.Network.NONE) {
            refuse(client, DenyCode.MODE_NONE);
            return;
        }
        switch (DoorRequest.judge(
                head.head(), door, token, kind.bodyLimit(), kind.gateway().port())) {
            case DoorRequest.Refused refused -> refuse(client, refused.code());
            case DoorRequest.Forward forward -> {
                record.target("door:" + door.port() + " " + forward.route().method() + " "
                        + forward.route().path());
                forward(client, forward, head.head().isHttp11(), head.content().retain());
            }
        }
    }

    private void forward(Channel client, DoorRequest.Forward forward, boolean http11Client, ByteBuf early) {
        String detail =
                "door route " + forward.route().method() + " " + forward.route().path();
        CompletableFuture<Verdict> verdict = kind.gateway().verdict(policy.id(), detail);
        kind.tunnels()
                .connect(
                        client,
                        verdict,
                        Exchange.after(client, this, forward.outgoing(), http11Client, early, kind.limits()));
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
