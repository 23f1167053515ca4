package io.portcullis.relay.daemon;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each complete control request to the control thread and writes its reply back; a
 * request the codec could not read is {@code 400}.
 */
final class ControlHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(ControlHandler.class);

    private final Control control;
    private final Executor thread;

    ControlHandler(Control control, Executor thread) {
        this.control = control;
        this.thread = thread;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (request.decoderResult().isFailure()) {
            write(
                    ctx,
                    Reply.errors(
                            HttpResponseStatus.BAD_REQUEST,
                            List.of("request: " + request.decoderResult().cause() + " (expected: HTTP/1.1)")),
                    false);
            return;
        }
        HttpMethod method = request.method();
        String path = new QueryStringDecoder(request.uri()).path();
        String body = request.content().toString(StandardCharsets.UTF_8);
        ctx.channel().config().setAutoRead(false);
        try {
            thread.execute(() -> {
                Reply reply;
                try {
                    reply = control.handle(method, path, body);
                } catch (RuntimeException e) {
                    log.warn("control {} {}: {}", method, path, e.toString());
                    reply = Reply.errors(
                            HttpResponseStatus.INTERNAL_SERVER_ERROR, List.of(String.valueOf(e.getMessage())));
                }
                write(ctx, reply, keepAlive);
                ctx.channel().config().setAutoRead(true);
            });
        } catch (RejectedExecutionException closing) {
            write(ctx, Reply.errors(HttpResponseStatus.SERVICE_UNAVAILABLE, List.of("daemon: closing")), false);
        }
    }

    private static void write(ChannelHandlerContext ctx, Reply reply, boolean keepAlive) {
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(), Unpooled.wrappedBuffer(bytes));
        if (bytes.length > 0) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        }
        if (!reply.allow().isEmpty()) {
            response.headers().set(HttpHeaderNames.ALLOW, reply.allow());
        }
        HttpUtil.setContentLength(response, bytes.length);
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("control connection: {}", cause.toString());
        ctx.close();
    }
}
