package io.portcullis.relay.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.Future;
import io.portcullis.entry.wire.Preamble;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Reads the 8-byte preamble of a spawn-socket connection and replaces itself with the handler of
 * its kind; the bytes after the preamble go to that handler unchanged. A preamble that is invalid,
 * names a kind and port that are not this spawn's, or is not complete in time closes the
 * connection with {@code bad-preamble}.
 */
public final class PreambleDecoder extends ByteToMessageDecoder {
    private final SpawnPorts ports;
    private final KindRouter router;
    private final long timeoutMillis;
    private Future<?> timeout;

    public PreambleDecoder(SpawnPorts ports, KindRouter router, long timeoutMillis) {
        this.ports = Objects.requireNonNull(ports, "ports");
        this.router = Objects.requireNonNull(router, "router");
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeoutMillis: " + timeoutMillis + " (expected: >= 1)");
        }
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> refuse(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        timeout.cancel(false);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < Preamble.LENGTH) {
            return;
        }
        byte[] bytes = new byte[Preamble.LENGTH];
        in.readBytes(bytes);
        Preamble preamble = Preamble.decode(bytes);
        if (preamble == null || !ports.accepts(preamble)) {
            in.skipBytes(in.readableBytes());
            refuse(ctx);
            return;
        }
        String kind = preamble.kind().name().toLowerCase(Locale.ROOT);
        ConnectionRecord.of(ctx.channel()).kind(kind);
        ctx.pipeline().addAfter(ctx.name(), kind, router.route(ctx.channel(), preamble));
        ctx.pipeline().remove(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }

    private static void refuse(ChannelHandlerContext ctx) {
        ConnectionRecord.of(ctx.channel()).deny(DenyCode.BAD_PREAMBLE);
        ctx.close();
    }
}
