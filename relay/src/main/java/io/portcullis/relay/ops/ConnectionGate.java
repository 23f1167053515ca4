package io.portcullis.relay.ops;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection cap and the one exchange of each connection of an operator's listener
 * ({@link ListenerLimits}). At the cap, a new connection takes the place of the held one that has
 * waited longest for its request (a slow or silent client, never one whose request is being
 * answered); when every held connection is being answered, the new one is closed at once. So a
 * flood of slow clients holds no more than the cap, and a probe that sends its request at once
 * still gets its answer.
 *
 * <p>A connection carries one request and one answer, then it is closed: what a client can make
 * the listener hold is one request and one answer, for at most twice the deadline and the time the
 * daemon takes to answer, however it sends.
 *
 * <pre>{@code
 * if (gate.admit(channel)) {
 *     pipeline.addLast(new HttpServerCodec(), gate.exchange(), new HttpObjectAggregator(max), handler);
 * }
 * }</pre>
 */
public final class ConnectionGate {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);

    private final String name;
    private final ListenerLimits limits;
    private final Set<Channel> held = new HashSet<>();
    /** The held connections waiting for a complete request, the one that has waited longest first. */
    private final LinkedHashSet<Channel> waiting = new LinkedHashSet<>();

    /** @param name the listener, for the log */
    public ConnectionGate(String name, ListenerLimits limits) {
        this.name = Objects.requireNonNull(name, "name");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Takes {@code channel} in, making room when the cap is reached; false, with the channel
     * closed, when no room can be made. From the channel's initializer.
     */
    public boolean admit(Channel channel) {
        Channel evicted = null;
        synchronized (this) {
            if (held.size() >= limits.connections()) {
                Iterator<Channel> eldest = waiting.iterator();
                if (!eldest.hasNext()) {
                    log.debug("{}: {} connections are being answered; a new one is closed", name, held.size());
                    channel.close();
                    return false;
                }
                evicted = eldest.next();
                release(evicted);
            }
            held.add(channel);
            waiting.add(channel);
        }
        if (evicted != null) {
            log.debug(
                    "{}: at its cap of {} connections, the one that waited longest for a request is closed",
                    name,
                    limits.connections());
            evicted.close();
        }
        channel.closeFuture().addListener(closed -> release(channel));
        return true;
    }

    /** The number of connections held now. */
    public synchronized int held() {
        return held.size();
    }

    /**
     * The handler that keeps the exchange of an admitted channel: between the codec and the
     * aggregator, so that it sees the end of the request and every answer, the aggregator's own
     * ({@code 100 Continue}, {@code 413}) too.
     */
    public ChannelHandler exchange() {
        return new Exchange();
    }

    private synchronized void release(Channel channel) {
        held.remove(channel);
        waiting.remove(channel);
    }

    private synchronized void answering(Channel channel) {
        waiting.remove(channel);
    }

    /**
     * One connection's exchange. The deadline runs from the accept to the end of the request. The
     * end of the request stops the reading: nothing more is read from the socket, and a request
     * already read behind it (pipelined) is dropped unanswered. The time the answer takes to make
     * is the daemon's own. The answer (the first final response: a {@code 100 Continue} is not
     * one) says {@code Connection: close}, has the deadline again to be sent, and the connection
     * is closed once it is sent, or at that deadline. An answer before the end of the request (the
     * aggregator's {@code 413}) ends the exchange the same way.
     */
    private final class Exchange extends ChannelDuplexHandler {
        /** The deadline armed now: the request's, then the answer's; none in between. */
        private Optional<ScheduledFuture<?>> timer = Optional.empty();

        private boolean reading = true;
        private boolean answered;
        private boolean dropped;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            arm(ctx, "request");
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!reading) {
                if (!dropped) {
                    dropped = true;
                    log.debug("{}: requests sent behind the one being answered are dropped", name);
                }
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof LastHttpContent) {
                cancel();
                stopReading(ctx);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (answered
                    || !(msg instanceof HttpResponse response)
                    || response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                ctx.write(msg, promise);
                return;
            }
            answered = true;
            stopReading(ctx);
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            arm(ctx, "answer sent");
            ChannelPromise sent = promise.unvoid();
            sent.addListener(done -> ctx.close());
            ctx.write(msg, sent);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancel();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            cancel();
        }

        /**
         * Auto-read off, and a handler in front of the codec that swallows the reads the codec and
         * the aggregator still ask for while they hold part of a next request.
         */
        private void stopReading(ChannelHandlerContext ctx) {
            if (!reading) {
                return;
            }
            reading = false;
            answering(ctx.channel());
            ctx.channel().config().setAutoRead(false);
            ctx.pipeline().addFirst(new Shut());
        }

        private void arm(ChannelHandlerContext ctx, String awaited) {
            cancel();
            timer = Optional.of(ctx.executor()
                    .schedule(
                            () -> {
                                log.debug(
                                        "{}: no {} within {} ms; closed",
                                        name,
                                        awaited,
                                        limits.deadline().toMillis());
                                ctx.close();
                            },
                            limits.deadline().toNanos(),
                            TimeUnit.NANOSECONDS));
        }

        private void cancel() {
            timer.ifPresent(armed -> armed.cancel(false));
            timer = Optional.empty();
        }
    }

    /** In front of the codec once the exchange has its request: no read reaches the socket, nothing read is kept. */
    private static final class Shut extends ChannelDuplexHandler {
        @Override
        public void read(ChannelHandlerContext ctx) {}

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }
}
