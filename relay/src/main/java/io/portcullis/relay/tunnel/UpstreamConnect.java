package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.policy.DenyCode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One CONNECT to the upstream proxy (SPEC R25) on a connected channel, and what came of it, the way
 * {@link Dialer} says what a dial came to: the proxy's 2xx (the channel then carries the target's
 * bytes), its refusal ({@code upstream-refused}, its status kept), or a failure to answer with an
 * HTTP/1.x status line within the time allowed ({@code upstream-failed}). The client closing
 * meanwhile gives the CONNECT up and closes the proxy's connection.
 */
final class UpstreamConnect extends ChannelInboundHandlerAdapter {
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] ([1-5][0-9]{2})(?: ([^\\r\\n]*))?");

    /** What the CONNECT came to. */
    sealed interface Answered permits Tunnel, Failed {}

    /**
     * The proxy answered 2xx.
     *
     * @param status the proxy's 2xx status
     * @param leftover bytes the proxy sent after its answer (the target's first), possibly none
     */
    record Tunnel(Channel channel, int status, ByteBuf leftover) implements Answered {}

    /**
     * The proxy could not be reached, broke the protocol, or refused.
     *
     * @param status the proxy's answer, 0 when it gave none
     */
    record Failed(DenyCode code, String detail, int status) implements Answered {}

    private final InetSocketAddress proxy;
    private final String authority;
    private final int headBytes;
    private final long answerMillis;
    private final CompletableFuture<Answered> answered = new CompletableFuture<>();
    private ByteBuf head = Unpooled.EMPTY_BUFFER;
    private Optional<ChannelHandlerContext> context = Optional.empty();
    private Optional<Future<?>> timer = Optional.empty();

    private UpstreamConnect(InetSocketAddress proxy, String authority, int headBytes, long answerMillis) {
        this.proxy = proxy;
        this.authority = authority;
        this.headBytes = headBytes;
        this.answerMillis = answerMillis;
    }

    /**
     * Sends {@code CONNECT authority} (with {@code authorization} as {@code Proxy-Authorization})
     * on {@code channel}, connected to the proxy at {@code proxy}, and reads the answer's head of at
     * most {@code headBytes} within {@code answerMillis}; completes on the channel's event loop.
     */
    static CompletableFuture<Answered> send(
            Channel client,
            Channel channel,
            InetSocketAddress proxy,
            String authority,
            Optional<String> authorization,
            int headBytes,
            long answerMillis) {
        UpstreamConnect connect = new UpstreamConnect(proxy, authority, headBytes, answerMillis);
        channel.pipeline().addLast("upstream-connect", connect);
        ChannelFutureListener gone = closed -> connect.fail("the client left");
        client.closeFuture().addListener(gone);
        connect.answered.whenComplete((done, error) -> client.closeFuture().removeListener(gone));
        StringBuilder text = new StringBuilder()
                .append("CONNECT ")
                .append(authority)
                .append(" HTTP/1.1\r\n")
                .append("Host: ")
                .append(authority)
                .append("\r\n");
        authorization.ifPresent(
                value -> text.append("Proxy-Authorization: ").append(value).append("\r\n"));
        text.append("\r\n");
        channel.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII))
                .addListener(written -> {
                    if (!written.isSuccess()) {
                        connect.fail("the CONNECT could not be written: " + written.cause());
                    }
                });
        channel.read();
        return connect.answered;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = Optional.of(ctx);
        head = ctx.alloc().buffer(256);
        timer = Optional.of(ctx.executor()
                .schedule(
                        () -> fail("no answer to the CONNECT within " + answerMillis + " ms"),
                        answerMillis,
                        TimeUnit.MILLISECONDS));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes) || answered.isDone()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            head.writeBytes(bytes);
        } finally {
            bytes.release();
        }
        int end = endOfHead(head);
        if (end < 0 ? head.readableBytes() > headBytes : end - head.readerIndex() > headBytes) {
            fail("an answer head longer than " + headBytes + " bytes");
            return;
        }
        if (end < 0) {
            ctx.read();
            return;
        }
        String text = head.toString(head.readerIndex(), end - head.readerIndex(), StandardCharsets.ISO_8859_1);
        int lineEnd = text.indexOf("\r\n");
        Matcher status = STATUS_LINE.matcher(lineEnd < 0 ? text : text.substring(0, lineEnd));
        if (!status.matches()) {
            fail("an answer that is not an HTTP/1.x status line");
            return;
        }
        int code = Integer.parseInt(status.group(1));
        if (code / 100 != 2) {
            String reason = status.group(2) == null ? "" : " " + status.group(2);
            settle(new Failed(
                    DenyCode.UPSTREAM_REFUSED,
                    "the upstream proxy " + proxy + " answered " + code + reason + " to CONNECT " + authority,
                    code));
            ctx.close();
            return;
        }
        ByteBuf leftover = head.retainedSlice(end + 4, head.writerIndex() - end - 4);
        settle(new Tunnel(ctx.channel(), code, leftover));
        ctx.pipeline().remove(this);
    }

    private void fail(String why) {
        if (settle(new Failed(DenyCode.UPSTREAM_FAILED, "the upstream proxy " + proxy + ": " + why, 0))) {
            context.ifPresent(ChannelHandlerContext::close);
        }
    }

    private boolean settle(Answered result) {
        timer.ifPresent(running -> running.cancel(false));
        return answered.complete(result);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        head.release();
        timer.ifPresent(running -> running.cancel(false));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail("the connection closed before an answer");
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause.toString());
    }

    /** The index of the CRLF CRLF that ends the head, or -1. */
    private static int endOfHead(ByteBuf buffer) {
        for (int i = buffer.readerIndex(); i + 3 < buffer.writerIndex(); i++) {
            if (buffer.getByte(i) == '\r'
                    && buffer.getByte(i + 1) == '\n'
                    && buffer.getByte(i + 2) == '\r'
                    && buffer.getByte(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }
}
