package io.portcullis.relay.ops;

import static io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes a {@link Reply} as an HTTP/1.1 response. The connection's {@link ConnectionGate} says
 * {@code Connection: close} on it and closes the connection once it is sent: each connection of an
 * operator's listener carries one exchange.
 */
public final class ReplyWriter {
    private ReplyWriter() {}

    /** Writes {@code reply} once it completes ({@code 500} if it failed: the caller logs why). */
    public static void write(ChannelHandlerContext ctx, CompletableFuture<Reply> reply, boolean head) {
        reply.whenComplete((answer, failed) -> write(
                ctx,
                failed == null
                        ? answer
                        : Reply.errors(INTERNAL_SERVER_ERROR, List.of(String.valueOf(failed.getMessage()))),
                head));
    }

    /**
     * Writes {@code reply}; the answer to a {@code HEAD} request ({@code head}) has the headers of
     * the body and no body.
     */
    public static void write(ChannelHandlerContext ctx, Reply reply, boolean head) {
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, reply.status(), head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
        if (bytes.length > 0) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        }
        if (!reply.allow().isEmpty()) {
            response.headers().set(HttpHeaderNames.ALLOW, reply.allow());
        }
        HttpUtil.setContentLength(response, bytes.length);
        ctx.writeAndFlush(response);
    }
}
