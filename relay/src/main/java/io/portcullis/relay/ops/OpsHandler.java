package io.portcullis.relay.ops;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers each request of the metrics listener from {@link Routes}; any other path is {@code 404}. */
final class OpsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(OpsHandler.class);

    private final Routes routes;

    OpsHandler(Routes routes) {
        this.routes = routes;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            ReplyWriter.write(
                    ctx,
                    Reply.errors(
                            BAD_REQUEST,
                            List.of("request: " + request.decoderResult().cause() + " (expected: HTTP/1.1)")),
                    false);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        CompletableFuture<Reply> reply = routes.answer(request.method(), path)
                .orElseGet(() -> CompletableFuture.completedFuture(Reply.errors(
                        NOT_FOUND,
                        List.of("path: " + path + " (expected: " + Routes.METRICS + ", " + Routes.HEALTH + " or "
                                + Routes.READY + ")"))));
        HttpMethod method = request.method();
        reply.thenAccept(answer -> log.debug(
                "metrics listener: {} {}: {}", method, path, answer.status().code()));
        ReplyWriter.write(ctx, reply, method.equals(HttpMethod.HEAD));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("metrics connection: {}", cause.toString());
        ctx.close();
    }
}
