package io.portcullis.relay.dnsclient;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.owner.PortHolders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Holds each DNS query until {@link LocalServerCheck} has said its server may be sent it (SPEC
 * R25): a UDP datagram before it is written, a TCP connection (a truncated answer asked again)
 * before it is made. A refused server gets nothing, and the write or the connect fails with a
 * {@link Refused}; netty's resolver then asks its next server, and the name fails when none is
 * left. Sits nearest the socket in each channel the resolver makes, so it sees the encoded query
 * and its recipient.
 */
@ChannelHandler.Sharable
final class ServerGuard extends ChannelOutboundHandlerAdapter {
    private final LocalServerCheck check;

    ServerGuard(LocalServerCheck check) {
        this.check = check;
    }

    /** Why a DNS server was sent nothing; {@code absent} when nothing holds its port. */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        private final boolean absent;

        Refused(LocalServerCheck.Refusal refusal) {
            super(refusal.detail());
            this.absent = refusal.absent();
        }

        /** Whether nothing holds the server's port: it is not there, rather than distrusted. */
        boolean absent() {
            return absent;
        }

        /** A refusal, not a bug: its stack says nothing. */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof DatagramPacket packet)) {
            ctx.write(msg, promise);
            return;
        }
        then(ctx, check.judge(PortHolders.Protocol.UDP, packet.recipient()), refusal -> {
            if (refusal.isPresent()) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new Refused(refusal.get()));
            } else {
                ctx.writeAndFlush(msg, promise);
            }
        });
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        if (!(remote instanceof InetSocketAddress server)) {
            ctx.connect(remote, local, promise);
            return;
        }
        then(ctx, check.judge(PortHolders.Protocol.TCP, server), refusal -> {
            if (refusal.isPresent()) {
                promise.setFailure(new Refused(refusal.get()));
            } else {
                ctx.connect(remote, local, promise);
            }
        });
    }

    /** Runs {@code next} with the verdict on the channel's event loop: at once when it is known. */
    private static void then(
            ChannelHandlerContext ctx,
            CompletableFuture<Optional<LocalServerCheck.Refusal>> verdict,
            Consumer<Optional<LocalServerCheck.Refusal>> next) {
        if (verdict.isDone() && ctx.executor().inEventLoop()) {
            next.accept(verdict.join());
            return;
        }
        verdict.thenAccept(refusal -> ctx.executor().execute(() -> next.accept(refusal)));
    }
}
