package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.record.ConnectionRecord;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a CONNECT tunnel's first client bytes until they are a whole TLS ClientHello with the
 * server name {@link FirstBytes} asks for (SPEC R23). Netty's {@link AbstractSniHandler} reads the
 * records and the server name; this handler judges, the ClientHello's shape by {@link
 * ClientHelloShape} (one host name at most, no extension twice). The upstream is dialed but hears
 * nothing, and is not read, until the ClientHello passed: then every byte held goes upstream
 * unchanged and the tunnel starts. Anything else closes both sides with {@code not-tls} or
 * {@code sni-mismatch}; so does a ClientHello that is not whole within the time allowed. TLS is
 * never terminated.
 */
public final class ClientHelloCheck extends AbstractSniHandler<Boolean> {
    private static final Logger log = LoggerFactory.getLogger(ClientHelloCheck.class);
    /** The longest ClientHello read; a post-quantum key share makes one about 2 KiB. */
    static final int MAX_CLIENT_HELLO = 16 * 1024;
    /**
     * The most client bytes held before the verdict: a ClientHello cut into many tiny records
     * carries five bytes of record header for each, so twice the hello's bound is plenty.
     */
    static final int MAX_HELD = 2 * MAX_CLIENT_HELLO;

    private static final Closed CLOSED = new Closed();

    private static final ClientHelloShape.Flaw NOT_A_CLIENT_HELLO =
            new ClientHelloShape.Flaw(DenyCode.NOT_TLS, "the first bytes are not a TLS ClientHello");

    private final Channel upstream;
    private final FirstBytes wanted;
    private final long timeoutMillis;
    private final CompletableFuture<Hello> outcome = new CompletableFuture<>();
    /** What is wrong with the first bytes; until a ClientHello is read, that they are none. */
    private Optional<ClientHelloShape.Flaw> flaw = Optional.of(NOT_A_CLIENT_HELLO);

    private boolean decided;
    private ScheduledFuture<?> timeout;
    private @Nullable ChannelFutureListener closeClient;
    private @Nullable ChannelFutureListener closeUpstream;

    private ClientHelloCheck(Channel upstream, FirstBytes wanted, long timeoutMillis) {
        super(MAX_CLIENT_HELLO, 0);
        this.upstream = upstream;
        this.wanted = wanted;
        this.timeoutMillis = timeoutMillis;
    }

    /** What came of the check, on the client's event loop. */
    public sealed interface Hello permits Passed, Closed {}

    /**
     * The ClientHello passed: {@code held} is every byte held (the ClientHello and anything after
     * it), for upstream; the check has left the pipeline.
     */
    public record Passed(ByteBuf held) implements Hello {}

    /** Refused or gone: both sides are closed and the record is settled. */
    public record Closed() implements Hello {}

    /**
     * Checks {@code client}'s first bytes, {@code early} (read with the CONNECT head) first. Both
     * channels must have auto-read off; the check sits last in the client's pipeline until it is
     * done.
     */
    public static CompletableFuture<Hello> await(
            Channel client, Channel upstream, ByteBuf early, FirstBytes wanted, long timeoutMillis) {
        ClientHelloCheck check = new ClientHelloCheck(upstream, wanted, timeoutMillis);
        // Closing either side ends the other while the check holds the tunnel; the splice takes over after.
        check.closeClient = closed -> client.close();
        check.closeUpstream = closed -> upstream.close();
        upstream.closeFuture().addListener(check.closeClient);
        client.closeFuture().addListener(check.closeUpstream);
        client.pipeline().addLast("client-hello", check);
        if (early.isReadable()) {
            client.pipeline().fireChannelRead(early);
            client.pipeline().fireChannelReadComplete();
        } else {
            early.release();
            client.read();
        }
        return check.outcome;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor()
                .schedule(
                        () -> refuse(ctx, DenyCode.NOT_TLS, "no whole ClientHello within " + timeoutMillis + " ms"),
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!decided
                && msg instanceof ByteBuf bytes
                && internalBuffer().readableBytes() + bytes.readableBytes() > MAX_HELD) {
            bytes.release();
            refuse(ctx, DenyCode.NOT_TLS, "more than " + MAX_HELD + " bytes without a whole ClientHello");
            return;
        }
        super.channelRead(ctx, msg);
    }

    @Override
    protected Future<Boolean> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) throws Exception {
        // Netty gives no ClientHello (null) when the first record is not one: not TLS at all. Its
        // reader takes the first server name it finds, so the shape and the name list are judged here.
        flaw = clientHello == null ? Optional.of(NOT_A_CLIENT_HELLO) : ClientHelloShape.flaw(clientHello);
        return super.lookup(ctx, clientHello);
    }

    /**
     * Completed on the next turn of the event loop, not at once, so that the verdict is carried out
     * outside the decoder's own call and the bytes held can be taken whole.
     */
    @Override
    protected Future<Boolean> lookup(ChannelHandlerContext ctx, String hostname) {
        Promise<Boolean> judged = ctx.executor().newPromise();
        boolean pass = flaw.isEmpty() && wanted.accepts(Optional.ofNullable(hostname));
        ctx.executor().execute(() -> judged.setSuccess(pass));
        return judged;
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname, Future<Boolean> future) {
        if (decided) {
            return;
        }
        if (flaw.isPresent()) {
            refuse(ctx, flaw.get().code(), flaw.get().detail());
        } else if (!future.getNow()) {
            refuse(
                    ctx,
                    DenyCode.SNI_MISMATCH,
                    "the ClientHello names " + (hostname == null ? "no server" : hostname) + ", not "
                            + wanted.serverName().orElse("none (an IP literal)"));
        } else {
            decided = true;
            timeout.cancel(false);
            ctx.channel().closeFuture().removeListener(closeUpstream);
            upstream.closeFuture().removeListener(closeClient);
            ByteBuf held = internalBuffer().readRetainedSlice(internalBuffer().readableBytes());
            ctx.pipeline().remove(this);
            outcome.complete(new Passed(held));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            // The client's own socket failed (a reset): no verdict on bytes that never came.
            decided = true;
            timeout.cancel(false);
            ctx.channel().close();
            outcome.complete(CLOSED);
            return;
        }
        // Netty's reader fails on a record that is TLS-shaped but broken, or a ClientHello too long.
        refuse(ctx, DenyCode.NOT_TLS, String.valueOf(cause.getMessage()));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        timeout.cancel(false);
        if (!decided) {
            decided = true;
            upstream.close();
            outcome.complete(CLOSED);
        }
        super.channelInactive(ctx);
    }

    private void refuse(ChannelHandlerContext ctx, DenyCode code, String detail) {
        if (decided) {
            return;
        }
        decided = true;
        timeout.cancel(false);
        ConnectionRecord record = ConnectionRecord.of(ctx.channel());
        log.debug("connection {}: {}: {}", record.id(), code.code(), detail);
        record.deny(code, detail);
        ctx.channel().close();
        upstream.close();
        outcome.complete(CLOSED);
    }
}
