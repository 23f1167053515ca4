package io.portcullis.relay.ops;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection cap and the exchange deadline of one operator's listener ({@link ListenerLimits}).
 * At the cap, a new connection takes the place of the held one that has waited longest for a
 * request (a slow or silent client, never one whose request is being answered); when every held
 * connection is being answered, the new one is closed at once. So a flood of slow clients holds
 * no more than the cap, and a probe that sends its request at once still gets its answer.
 *
 * <pre>{@code
 * if (gate.admit(channel)) {
 *     pipeline.addLast(new HttpServerCodec(), new HttpObjectAggregator(max), gate.exchange(), handler);
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

    /** The handler that keeps the deadline of an admitted channel, after the request aggregator. */
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

    private synchronized void waitingAgain(Channel channel) {
        if (held.contains(channel)) {
            waiting.add(channel);
        }
    }

    /**
     * One connection's deadline: armed when the handler is added and again when an answer is
     * written, stopped when a complete request arrives, armed again once the answer is sent (the
     * keep-alive wait and the next request share one deadline).
     */
    private final class Exchange extends ChannelDuplexHandler {
        private ScheduledFuture<?> timer;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            arm(ctx, "request");
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                cancel();
                answering(ctx.channel());
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (!(msg instanceof HttpResponse)) {
                ctx.write(msg, promise);
                return;
            }
            arm(ctx, "answer");
            ChannelPromise sent = promise.unvoid();
            sent.addListener(done -> {
                if (done.isSuccess() && ctx.channel().isActive()) {
                    arm(ctx, "request");
                    waitingAgain(ctx.channel());
                }
            });
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

        private void arm(ChannelHandlerContext ctx, String awaited) {
            cancel();
            timer = ctx.executor()
                    .schedule(
                            () -> {
                                log.debug(
                                        "{}: no complete {} within {} ms; closed",
                                        name,
                                        awaited,
                                        limits.deadline().toMillis());
                                ctx.close();
                            },
                            limits.deadline().toNanos(),
                            TimeUnit.NANOSECONDS);
        }

        private void cancel() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }
}
