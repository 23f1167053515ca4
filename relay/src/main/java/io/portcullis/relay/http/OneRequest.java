package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.Optional;

/**
 * The last word on what an exchange writes to its upstream (SPEC R10): one request head, then body
 * pieces that add up to exactly what its {@link Framing} says, then one end. Any other write, one
 * after the end or past the length, is dropped and its promise failed with {@link Refused},
 * whatever asked for it: a second request never leaves the relay on an exchange's connection.
 */
final class OneRequest extends ChannelOutboundHandlerAdapter {
    /** A write past the one request; the exchange fails with {@code relay-error}. */
    static final class Refused extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** The body's length, or -1 when chunked. */
    private final long length;

    private boolean head;
    private boolean ended;
    private long sent;

    OneRequest(Framing framing) {
        this.length = switch (framing) {
            case Framing.Length given -> given.bytes();
            case Framing.None none -> 0;
            case Framing.Chunked chunked -> -1;
        };
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        Optional<String> wrong = wrong(msg);
        if (wrong.isPresent()) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(new Refused(wrong.get()));
            return;
        }
        ctx.write(msg, promise);
    }

    /** Why {@code msg} may not go upstream, empty when it may; counts it when it may. */
    private Optional<String> wrong(Object msg) {
        if (ended) {
            return Optional.of("a write after the request's end");
        }
        if (msg instanceof HttpRequest) {
            if (head || msg instanceof HttpContent) {
                return Optional.of("a second request head, or a head with its body");
            }
            head = true;
            return Optional.empty();
        }
        if (!(msg instanceof HttpContent content)) {
            return msg instanceof ByteBuf bytes && !bytes.isReadable()
                    ? Optional.empty()
                    : Optional.of("bytes outside the request");
        }
        if (!head) {
            return Optional.of("a body before the head");
        }
        sent += content.content().readableBytes();
        if (length >= 0 && sent > length) {
            return Optional.of("more body than the Content-Length");
        }
        if (content instanceof LastHttpContent) {
            ended = true;
            if (length >= 0 && sent != length) {
                return Optional.of("a body shorter than the Content-Length");
            }
        }
        return Optional.empty();
    }
}
