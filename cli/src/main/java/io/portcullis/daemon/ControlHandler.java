package io.portcullis.daemon;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.portcullis.relay.ops.Reply;
import io.portcullis.relay.ops.ReplyWriter;
import io.portcullis.relay.ops.Routes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each complete control request to the control thread and writes its reply back; the
 * operator's routes ({@code /metrics}, {@code /healthz}, {@code /readyz}) are answered without it,
 * so a probe never waits behind a spawn being opened. A request the codec could not read is
 * {@code 400}.
 */
final class ControlHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(ControlHandler.class);

    private final Control control;
    private final Successor successor;
    private final Routes routes;
    private final Executor thread;

    ControlHandler(Control control, Successor successor, Routes routes, Executor thread) {
        this.control = control;
        this.successor = successor;
        this.routes = routes;
        this.thread = thread;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            ReplyWriter.write(
                    ctx,
                    Reply.errors(
                            HttpResponseStatus.BAD_REQUEST,
                            List.of("request: " + request.decoderResult().cause() + " (expected: HTTP/1.1)")),
                    false);
            return;
        }
        HttpMethod method = request.method();
        String path = new QueryStringDecoder(request.uri()).path();
        Optional<CompletableFuture<Reply>> operator = routes.answer(method, path);
        if (operator.isPresent()) {
            operator.get().thenAccept(answer -> logAnswer(method, path, answer));
            ReplyWriter.write(ctx, operator.get(), method.equals(HttpMethod.HEAD));
            return;
        }
        String body = request.content().toString(StandardCharsets.UTF_8);
        if (path.equals("/upgrade")) {
            upgrade(ctx, method, body);
            return;
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        try {
            thread.execute(() -> {
                try {
                    Reply answer = control.handle(method, path, body);
                    logAnswer(method, path, answer);
                    reply.complete(answer);
                } catch (RuntimeException e) {
                    log.warn("control {} {}: {}", method, path, e.toString());
                    reply.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException closing) {
            reply.complete(Reply.errors(HttpResponseStatus.SERVICE_UNAVAILABLE, List.of("daemon: closing")));
        }
        ReplyWriter.write(ctx, reply, false);
    }

    /**
     * {@code POST /upgrade} (SPEC R44), on the control thread: a refusal is answered as any reply;
     * a successor that is served takes the connection over.
     */
    private void upgrade(ChannelHandlerContext ctx, HttpMethod method, String body) {
        try {
            thread.execute(() -> {
                Optional<Reply> answer = method.equals(HttpMethod.POST)
                        ? control.upgradedAnswer().or(() -> successor.serve(ctx.channel(), body))
                        : Optional.of(Reply.notAllowed("POST"));
                answer.ifPresent(reply -> {
                    logAnswer(method, "/upgrade", reply);
                    ReplyWriter.write(ctx, reply, false);
                });
            });
        } catch (RejectedExecutionException closing) {
            ReplyWriter.write(
                    ctx, Reply.errors(HttpResponseStatus.SERVICE_UNAVAILABLE, List.of("daemon: closing")), false);
        }
    }

    private static void logAnswer(HttpMethod method, String path, Reply answer) {
        log.debug("control {} {}: {}", method, path, answer.status().code());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("control connection: {}", cause.toString());
        ctx.close();
    }
}
