package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.portcullis.relay.checks.Checks;
import io.portcullis.relay.judge.Judged;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.record.ConnectionRecord;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps every tunnel takes once its target is known: wait for the spawn's judge, dial exactly
 * the checked addresses (or reach them through the host's upstream proxy, SPEC R25), and say what
 * came of it, as a value on the client's event loop. The kind that asked answers the client and
 * starts the copy or the exchange; nothing here calls back into a kind.
 */
public final class Tunnels {
    private static final Logger log = LoggerFactory.getLogger(Tunnels.class);

    /** How long a tunnel that must start with a ClientHello waits for it by default: the header timeout's default. */
    public static final long DEFAULT_HELLO_MILLIS = 10_000;

    private final Dialer dialer;
    private final long idleMillis;
    private final long helloMillis;
    private final Metrics metrics;
    private final Optional<UpstreamProxy> upstream;

    public Tunnels(Dialer dialer, long idleMillis) {
        this(dialer, idleMillis, DEFAULT_HELLO_MILLIS, new Metrics(), Optional.empty());
    }

    /**
     * @param idleMillis how long a byte tunnel may move nothing either way (SPEC R16)
     * @param helloMillis how long a tunnel that must start with a TLS ClientHello (SPEC R23) waits
     *     for the whole of it
     * @param metrics where the decision and connect latencies go
     * @param upstream the host's upstream proxy, through which targets outside this host go
     */
    public Tunnels(
            Dialer dialer, long idleMillis, long helloMillis, Metrics metrics, Optional<UpstreamProxy> upstream) {
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.upstream = Objects.requireNonNull(upstream, "upstream");
        Checks.positive("idleMillis", idleMillis);
        Checks.positive("helloMillis", helloMillis);
        this.idleMillis = idleMillis;
        this.helloMillis = helloMillis;
    }

    /** What the upstream is asked to carry: a byte tunnel, or one plain HTTP request. */
    public enum Carry {
        BYTES,
        HTTP
    }

    /** What came of a tunnel: up, refused, or gone with its client. The record is settled as it says. */
    public sealed interface Opened permits Up, Refused, Gone {}

    /**
     * The upstream answered. {@code upstream} has auto-read off and no handler.
     *
     * @param leftover bytes the upstream proxy sent after its answer to a CONNECT (the target's
     *     first), for the client before anything else; usually empty; the kind releases it
     * @param proxied for a plain HTTP request whose target is reached through the upstream proxy:
     *     {@code upstream} is that proxy, and the request goes to it in absolute form
     * @param first what a byte tunnel must carry first (SPEC R23)
     */
    public record Up(Channel upstream, ByteBuf leftover, Optional<UpstreamProxy.Request> proxied, FirstBytes first)
            implements Opened {
        public Up {
            Objects.requireNonNull(upstream, "upstream");
            Objects.requireNonNull(leftover, "leftover");
            Objects.requireNonNull(proxied, "proxied");
            Objects.requireNonNull(first, "first");
        }
    }

    /**
     * Refused by the judge, or allowed and failed; the client is owed an answer.
     *
     * @param told what the client may be told beyond the code, e.g. the upstream proxy's status;
     *     empty for most
     */
    public record Refused(DenyCode code, String told) implements Opened {
        public Refused {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(told, "told");
        }
    }

    /** The client left before its upstream was reached: nobody to answer. */
    public record Gone() implements Opened {}

    private static final Gone GONE = new Gone();

    /** How long a byte tunnel may move nothing, for the copy ({@link Splice}). */
    public long idleMillis() {
        return idleMillis;
    }

    /** How long a tunnel waits for its ClientHello ({@link ClientHelloCheck}). */
    public long helloMillis() {
        return helloMillis;
    }

    /**
     * Waits for {@code judged}, records it, and dials what it allows for {@code client}, which must
     * have auto-read off; completes on the client's event loop.
     */
    public CompletableFuture<Opened> open(Channel client, CompletableFuture<Judged> judged, Carry carry) {
        ConnectionRecord record = ConnectionRecord.of(client);
        long asked = System.nanoTime();
        CompletableFuture<Opened> opened = new CompletableFuture<>();
        onLoop(judged, client.eventLoop(), (answer, error) -> {
            metrics.decision().observe(System.nanoTime() - asked);
            if (error != null) {
                log.warn("connection {}: the decision failed: {}", record.id(), error.toString());
                record.fail(DenyCode.RELAY_ERROR, "the decision failed: " + error);
                opened.complete(new Refused(DenyCode.RELAY_ERROR, ""));
                return;
            }
            record.judged(answer);
            switch (answer.verdict()) {
                case Verdict.Deny deny -> {
                    record.deny(deny.code(), deny.detail());
                    opened.complete(new Refused(deny.code(), ""));
                }
                case Verdict.Allow allow ->
                    dial(client, allow, carry).whenComplete((done, failed) -> {
                        if (failed != null) {
                            log.warn("connection {}: the dial failed: {}", record.id(), failed.toString());
                            record.fail(DenyCode.RELAY_ERROR, "the dial failed: " + failed);
                            opened.complete(new Refused(DenyCode.RELAY_ERROR, ""));
                        } else {
                            opened.complete(done);
                        }
                    });
            }
        });
        return opened;
    }

    /**
     * Runs {@code then} on {@code loop} once {@code future} is done: at once when it is done already
     * and this is the loop's thread (a cached decision), else as a task of the loop.
     */
    static <T> void onLoop(CompletableFuture<T> future, EventLoop loop, BiConsumer<T, Throwable> then) {
        if (future.isDone() && loop.inEventLoop()) {
            future.whenComplete(then);
        } else {
            future.whenCompleteAsync(then, loop);
        }
    }

    private CompletableFuture<Opened> dial(Channel client, Verdict.Allow allow, Carry carry) {
        ConnectionRecord record = ConnectionRecord.of(client);
        if (!client.isActive()) {
            return CompletableFuture.completedFuture(GONE);
        }
        long dialing = System.nanoTime();
        return reach(client, allow, carry).thenApply(reached -> {
            long took = System.nanoTime() - dialing;
            metrics.connect().observe(took);
            record.connectTook(took);
            return settle(client, allow, reached);
        });
    }

    /** Dials the checked addresses, or reaches them through the upstream proxy when it carries them. */
    private CompletableFuture<Reached> reach(Channel client, Verdict.Allow allow, Carry carry) {
        ConnectionRecord record = ConnectionRecord.of(client);
        Optional<UpstreamProxy> via = upstream.filter(proxy -> proxy.carries(allow));
        if (via.isEmpty()) {
            return dialer.dial(client, allow.dial(), record::dialing).thenApply(Tunnels::reached);
        }
        UpstreamProxy proxy = via.get();
        if (carry == Carry.BYTES) {
            return proxy.connect(client, allow, (address, authority, checked) -> {
                        record.upstream(address, "CONNECT " + authority);
                        checked.ifPresent(record::dialing);
                    })
                    .thenApply(Tunnels::reached);
        }
        UpstreamProxy.Request request = proxy.request(allow);
        proxy.checked(allow).ifPresent(record::dialing);
        return proxy.reach(client, allow, address -> record.upstream(address, "http://" + request.authority()))
                .thenApply(dialed -> switch (reached(dialed)) {
                    case Connected connected ->
                        new Connected(connected.channel(), connected.leftover(), Optional.of(request), 0);
                    case Failed failed -> failed;
                });
    }

    /** What a dial came to, direct or through the upstream proxy. */
    private sealed interface Reached permits Connected, Failed {}

    /** @param status the upstream proxy's 2xx to a CONNECT; 0 when none was asked */
    private record Connected(Channel channel, ByteBuf leftover, Optional<UpstreamProxy.Request> proxied, int status)
            implements Reached {}

    /** @param status the upstream proxy's answer; 0 when it gave none */
    private record Failed(DenyCode code, String detail, int status) implements Reached {}

    private static Reached reached(Dialer.Outcome dialed) {
        return switch (dialed) {
            case Dialer.Connected connected ->
                new Connected(connected.channel(), Unpooled.EMPTY_BUFFER, Optional.empty(), 0);
            case Dialer.Failed failed -> new Failed(failed.code(), failed.detail(), 0);
        };
    }

    private static Reached reached(UpstreamConnect.Answered through) {
        return switch (through) {
            case UpstreamConnect.Tunnel tunnel ->
                new Connected(tunnel.channel(), tunnel.leftover(), Optional.empty(), tunnel.status());
            case UpstreamConnect.Failed failed -> new Failed(failed.code(), failed.detail(), failed.status());
        };
    }

    /** The record settled as the dial came out, and what the kind is told. */
    private static Opened settle(Channel client, Verdict.Allow allow, Reached reached) {
        ConnectionRecord record = ConnectionRecord.of(client);
        switch (reached) {
            case Connected connected
            when client.isActive() -> {
                if (connected.status() != 0) {
                    record.upstreamStatus(connected.status());
                }
                record.connected();
                return new Up(connected.channel(), connected.leftover(), connected.proxied(), allow.first());
            }
            case Connected connected -> {
                connected.leftover().release();
                connected.channel().close();
                return GONE;
            }
            case Failed failed
            when !client.isActive() -> {
                record.fail(failed.code(), failed.detail());
                return GONE;
            }
            case Failed failed -> {
                log.debug("connection {}: {}", record.id(), failed.detail());
                if (failed.status() != 0) {
                    record.upstreamStatus(failed.status());
                }
                record.fail(failed.code(), failed.detail());
                return new Refused(
                        failed.code(), failed.status() == 0 ? "" : "the upstream proxy answered " + failed.status());
            }
        }
    }

    /**
     * A kind failed to take over a connected tunnel: fail closed, both sides closed and the record
     * settled, rather than leave two open channels that nothing reads.
     */
    public static void broken(Channel client, Up up, RuntimeException e) {
        ConnectionRecord record = ConnectionRecord.of(client);
        log.warn("connection {}: the tunnel could not start: {}", record.id(), e.toString());
        record.fail(DenyCode.RELAY_ERROR, "the tunnel could not start: " + e);
        up.upstream().close();
        client.close();
    }
}
