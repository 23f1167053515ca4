package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.tunnel.Early;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request and its one answer between a client and its connected upstream (SPEC R10, R13):
 * the {@link Outgoing} head, the client's body re-framed by {@link BodyDecoder}, then the answer
 * read with Netty's HTTP client codec (strict line parsing, RFC 9112 transfer codings) and
 * written back by {@link UpstreamAnswer} with {@code Connection: close}. Then both sides close: a second
 * request on the connection is read and dropped, never sent. Everything runs on the client's
 * event loop, where the upstream channel lives too.
 */
public final class Exchange {
    private static final Logger log = LoggerFactory.getLogger(Exchange.class);

    /**
     * @param requestBytes the largest request body
     * @param responseBytes the largest answer body
     * @param totalMillis from the start of the exchange to the end of the answer
     */
    public record Limits(long requestBytes, long responseBytes, long totalMillis) {
        public Limits {
            if (requestBytes < 0 || responseBytes < 1 || totalMillis < 1) {
                throw new IllegalArgumentException("limits: " + requestBytes + "/" + responseBytes + "/" + totalMillis
                        + " (expected: >= 0 / >= 1 / >= 1)");
            }
        }
    }

    private final Channel client;
    private final Channel upstream;
    private final ConnectionRecord record;
    private final Limits limits;
    private final Future<?> timer;
    private boolean answered;
    private boolean done;

    private Exchange(Channel client, Channel upstream, Limits limits) {
        this.client = client;
        this.upstream = upstream;
        this.record = ConnectionRecord.of(client);
        this.limits = limits;
        this.timer = client.eventLoop()
                .schedule(() -> fail(DenyCode.HTTP_TIMEOUT), limits.totalMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * What a client may send after its head and have kept while its upstream is dialed, beyond the
     * largest body: room for chunk framing and a little more.
     */
    public static final int HELD_SLACK = 64 * 1024;

    /**
     * What a kind does once its upstream is up, refused or gone: the one exchange (see {@link
     * #start}), or the refusal's answer, or nothing for a client that left. Through the host's
     * upstream proxy, {@code outgoing} goes in absolute form. {@code early} is taken or released.
     */
    public static void after(
            Tunnels.Opened opened,
            Channel client,
            ChannelHandler replaced,
            Outgoing outgoing,
            boolean http11Client,
            Early early,
            Limits limits) {
        switch (opened) {
            case Tunnels.Gone gone -> early.release();
            case Tunnels.Refused refused -> {
                early.release();
                Replies.refuse(client, refused.code(), refused.told());
            }
            case Tunnels.Up up -> {
                try {
                    start(
                            client,
                            replaced,
                            up.upstream(),
                            up.proxied().map(outgoing::through).orElse(outgoing),
                            up.proxied().isPresent(),
                            http11Client,
                            early,
                            limits);
                } catch (RuntimeException e) {
                    early.release();
                    Tunnels.broken(client, up, e);
                }
            }
        }
    }

    /**
     * Sends {@code outgoing} upstream and its answer back. Both channels have auto-read off; the
     * exchange's handlers take {@code replaced}'s place in the client's pipeline (the kind's
     * handler, done with), and {@code early} (the bytes after the head, the body's start, and
     * whether the client ended meanwhile) is taken and released here. {@code viaProxy}: the
     * upstream is the host's upstream proxy (SPEC R25), whose own answers the client is not given.
     */
    static void start(
            Channel client,
            ChannelHandler replaced,
            Channel upstream,
            Outgoing outgoing,
            boolean viaProxy,
            boolean http11Client,
            Early early,
            Limits limits) {
        Exchange exchange = new Exchange(client, upstream, limits);
        HttpDecoderConfig strict = new HttpDecoderConfig()
                .setStrictLineParsing(true)
                .setUseRfc9112TransferEncoding(true)
                .setAllowDuplicateContentLengths(false)
                .setValidateHeaders(true);
        upstream.pipeline().addLast("count-up", new Counter(exchange.record::up));
        upstream.pipeline().addLast("codec", new HttpClientCodec(strict, false, false));
        upstream.pipeline().addLast("one-request", new OneRequest(outgoing.framing()));
        upstream.pipeline()
                .addLast(
                        "answer",
                        new UpstreamAnswer(
                                exchange,
                                client,
                                outgoing.request().method().equals(HttpMethod.HEAD),
                                viaProxy,
                                http11Client,
                                limits.responseBytes()));
        ByteBuf bytes = early.take();
        BodyDecoder body = new BodyDecoder(outgoing.framing(), limits.requestBytes());
        client.pipeline().replace(replaced, "body", body);
        client.pipeline().addLast("body-up", exchange.new BodyUp());
        upstream.write(outgoing.request()).addListener(exchange.orFail());
        if (body.done()) {
            upstream.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(exchange.orFail());
        } else {
            upstream.flush();
        }
        client.pipeline().fireChannelRead(bytes);
        if (early.overflowed() && !body.done()) {
            exchange.fail(DenyCode.BODY_TOO_LARGE);
        } else if (early.ended()) {
            // The end the transport reported while the upstream was dialed: a body cut short is refused.
            client.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        }
        client.pipeline().fireChannelReadComplete();
        upstream.read();
    }

    private ChannelFutureListener orFail() {
        return written -> {
            if (written.cause() instanceof OneRequest.Refused refused) {
                log.warn("connection {}: not sent upstream: {}", record.id(), refused.getMessage());
                fail(DenyCode.RELAY_ERROR);
            } else if (!written.isSuccess()) {
                log.debug(
                        "connection {}: upstream write failed: {}",
                        record.id(),
                        written.cause().toString());
                fail(DenyCode.CONNECT_FAILED);
            }
        };
    }

    /** The client's body went upstream in full, or the answer is complete: keep reading the client only to drop. */
    void readNext(Channel channel) {
        if (!done) {
            channel.read();
        }
    }

    /** The answer's head was written to the client. */
    void answered() {
        answered = true;
    }

    boolean isDone() {
        return done;
    }

    /** The answer is complete and written: both sides close. */
    void finish() {
        if (done) {
            return;
        }
        done = true;
        timer.cancel(false);
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        upstream.close();
    }

    /**
     * Ends the exchange with {@code code}: an answer to the client when nothing was answered yet,
     * else a close that leaves the client with a visibly cut answer.
     */
    void fail(DenyCode code) {
        fail(code, "");
    }

    /** As {@link #fail(DenyCode)}, with {@code told} after the answer's sentence. */
    void fail(DenyCode code, String told) {
        if (done) {
            return;
        }
        done = true;
        timer.cancel(false);
        upstream.close();
        if (Replies.status(code).failure() || code == DenyCode.CLIENT_CLOSED) {
            record.fail(code, told);
        } else {
            record.deny(code, told);
        }
        if (answered) {
            client.close();
        } else {
            Replies.refuse(client, code, told);
        }
    }

    /** Counts what is written to a channel. */
    private static final class Counter extends ChannelOutboundHandlerAdapter {
        private final LongConsumer counter;

        Counter(LongConsumer counter) {
            this.counter = counter;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf bytes) {
                counter.accept(bytes.readableBytes());
            }
            ctx.write(msg, promise);
        }
    }

    /**
     * Passes the client's body on to upstream, one piece per write, and drops what follows it. One
     * read of the client may give many pieces (a chunk each); the next read waits until all of
     * them are written, so a slow upstream holds about two reads' worth at most (a write that
     * completes at once re-arms the read before the rest of its read is handled), however small
     * the chunks.
     */
    private final class BodyUp extends ChannelInboundHandlerAdapter {
        private int unwritten;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (done) {
                ReferenceCountUtil.release(msg);
                return;
            }
            switch (msg) {
                case BodyDecoder.Failure failure -> fail(failure.code());
                case HttpContent content -> {
                    unwritten++;
                    upstream.writeAndFlush(content).addListener(orFail()).addListener(written -> {
                        if (--unwritten == 0) {
                            readNext(ctx.channel());
                        }
                    });
                }
                default -> ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (!(event instanceof ChannelInputShutdownEvent)) {
                ctx.fireUserEventTriggered(event);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!done) {
                done = true;
                timer.cancel(false);
                upstream.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("connection {}: client side failed: {}", record.id(), cause.toString());
            fail(DenyCode.RELAY_ERROR);
        }
    }
}
