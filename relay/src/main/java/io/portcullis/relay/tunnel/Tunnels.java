package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.Verdict;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps every tunnel takes after its target is known: wait for the verdict, dial exactly the
 * checked addresses (or reach them through the host's upstream proxy, SPEC R25), then copy both
 * ways. Each kind says how it answers: the proxy writes {@code 200} or an error reply, a forward
 * says nothing or closes.
 */
public final class Tunnels {
    private static final Logger log = LoggerFactory.getLogger(Tunnels.class);

    private final Dialer dialer;
    private final long idleMillis;
    private final long helloMillis;
    private final Metrics metrics;
    private final Optional<UpstreamProxy> upstream;

    public Tunnels(Dialer dialer, long idleMillis) {
        this(dialer, idleMillis, DEFAULT_HELLO_MILLIS, new Metrics(), Optional.empty());
    }

    /** How long a tunnel that must start with a ClientHello waits for it by default: the header timeout's default. */
    public static final long DEFAULT_HELLO_MILLIS = 10_000;

    /**
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
        if (idleMillis < 1) {
            throw new IllegalArgumentException("idleMillis: " + idleMillis + " (expected: >= 1)");
        }
        if (helloMillis < 1) {
            throw new IllegalArgumentException("helloMillis: " + helloMillis + " (expected: >= 1)");
        }
        this.idleMillis = idleMillis;
        this.helloMillis = helloMillis;
    }

    /** What a kind does once the verdict is in and the dial is over; called on the client's event loop. */
    public interface Then {
        /**
         * The upstream answered; {@code upstream} has auto-read off and no handlers.
         *
         * @param proxied for a plain HTTP request whose target is reached through the upstream
         *     proxy: {@code upstream} is that proxy, and the request goes to it in absolute form
         */
        void connected(Channel client, Channel upstream, Optional<UpstreamProxy.Request> proxied);

        /**
         * Refused or failed with {@code code}; the record is settled.
         *
         * @param told what the client may be told beyond the code, e.g. the upstream proxy's
         *     status; empty for most
         */
        void refused(Channel client, DenyCode code, String told);

        /** The client left before the upstream was reached. */
        void abandoned(Channel client);
    }

    /** How a byte tunnel's kind answers a refusal or failure. */
    @FunctionalInterface
    public interface Refused {
        /** @param told as in {@link Then#refused} */
        void refused(Channel client, DenyCode code, String told);
    }

    /** What the upstream is asked to carry: a byte tunnel, or one plain HTTP request. */
    private enum Carry {
        BYTES,
        HTTP
    }

    /**
     * Opens the tunnel of {@code client} once {@code verdict} completes. The client channel must
     * have auto-read off. {@code early} holds client bytes that arrived before the tunnel was up
     * and is released here in every case. When the verdict asks for a TLS ClientHello first
     * ({@link Verdict.Allow#first()}), copying starts only once one came that passed.
     *
     * @param established called on the event loop right before copying starts
     * @param refused called on the event loop with the deny or failure code; the record is settled
     */
    public void open(
            Channel client,
            CompletableFuture<Verdict> verdict,
            ByteBuf early,
            Consumer<Channel> established,
            Refused refused) {
        connect(client, verdict, Carry.BYTES, new Then() {
            @Override
            public void connected(Channel channel, Channel upstream, Optional<UpstreamProxy.Request> proxied) {
                established.accept(channel);
                FirstBytes first = verdict.join() instanceof Verdict.Allow allow ? allow.first() : FirstBytes.ANY;
                if (first.clientHello()) {
                    ClientHelloCheck.await(
                            channel,
                            upstream,
                            early,
                            first,
                            helloMillis,
                            held -> Splice.join(channel, upstream, held, idleMillis));
                } else {
                    Splice.join(channel, upstream, early, idleMillis);
                }
            }

            @Override
            public void refused(Channel channel, DenyCode code, String told) {
                early.release();
                refused.refused(channel, code, told);
            }

            @Override
            public void abandoned(Channel channel) {
                early.release();
            }
        });
    }

    /**
     * For one plain HTTP request: waits for {@code verdict}, dials exactly the checked addresses
     * (or the upstream proxy, to which the request then goes in absolute form), and tells {@code
     * then}. The client channel must have auto-read off.
     */
    public void connect(Channel client, CompletableFuture<Verdict> verdict, Then then) {
        connect(client, verdict, Carry.HTTP, then);
    }

    private void connect(Channel client, CompletableFuture<Verdict> verdict, Carry carry, Then then) {
        ConnectionRecord record = ConnectionRecord.of(client);
        long asked = System.nanoTime();
        verdict.whenCompleteAsync(
                (answer, error) -> {
                    metrics.decision().observe(System.nanoTime() - asked);
                    if (error != null) {
                        log.warn("connection {}: the decision failed: {}", record.id(), error.toString());
                        record.fail(DenyCode.RELAY_ERROR);
                        then.refused(client, DenyCode.RELAY_ERROR, "");
                        return;
                    }
                    record.resolved(answer.resolved());
                    answer.owner().ifPresent(record::owner);
                    switch (answer) {
                        case Verdict.Deny deny -> {
                            record.deny(deny.code());
                            then.refused(client, deny.code(), "");
                        }
                        case Verdict.Allow allow -> dial(client, allow, carry, then);
                    }
                },
                client.eventLoop());
    }

    private void dial(Channel client, Verdict.Allow allow, Carry carry, Then then) {
        ConnectionRecord record = ConnectionRecord.of(client);
        record.allowed();
        if (!client.isActive()) {
            then.abandoned(client);
            return;
        }
        long dialing = System.nanoTime();
        Optional<UpstreamProxy> via = upstream.filter(proxy -> proxy.carries(allow));
        if (via.isPresent() && carry == Carry.BYTES) {
            through(client, via.get(), allow, then, dialing);
            return;
        }
        CompletableFuture<Dialer.Outcome> dialed;
        Optional<UpstreamProxy.Request> proxied;
        if (via.isPresent()) {
            UpstreamProxy.Request request = via.get().request(allow);
            proxied = Optional.of(request);
            via.get().checked(allow).ifPresent(record::dialing);
            dialed = via.get().reach(client, allow, proxy -> record.upstream(proxy, "http://" + request.authority()));
        } else {
            proxied = Optional.empty();
            dialed = dialer.dial(client, allow.dial(), record::dialing);
        }
        dialed.thenAccept(outcome -> {
            metrics.connect().observe(System.nanoTime() - dialing);
            switch (outcome) {
                case Dialer.Connected connected
                when client.isActive() -> {
                    record.connected();
                    try {
                        then.connected(client, connected.channel(), proxied);
                    } catch (RuntimeException e) {
                        broken(client, connected.channel(), e);
                    }
                }
                case Dialer.Connected connected -> {
                    then.abandoned(client);
                    connected.channel().close();
                }
                case Dialer.Failed failed
                when !client.isActive() -> {
                    record.fail(failed.code());
                    then.abandoned(client);
                }
                case Dialer.Failed failed -> {
                    log.debug("connection {}: {}", record.id(), failed.detail());
                    record.fail(failed.code());
                    then.refused(client, failed.code(), "");
                }
            }
        });
    }

    /** A byte tunnel through the upstream proxy: a CONNECT for the checked address. */
    private void through(Channel client, UpstreamProxy proxy, Verdict.Allow allow, Then then, long dialing) {
        ConnectionRecord record = ConnectionRecord.of(client);
        proxy.connect(client, allow, (address, authority, checked) -> {
                    record.upstream(address, "CONNECT " + authority);
                    checked.ifPresent(record::dialing);
                })
                .thenAccept(outcome -> {
                    metrics.connect().observe(System.nanoTime() - dialing);
                    switch (outcome) {
                        case UpstreamProxy.Tunnel tunnel
                        when client.isActive() -> {
                            record.upstreamStatus(tunnel.status());
                            record.connected();
                            try {
                                then.connected(client, tunnel.channel(), Optional.empty());
                            } catch (RuntimeException e) {
                                tunnel.leftover().release();
                                broken(client, tunnel.channel(), e);
                                return;
                            }
                            // The target's first bytes, sent with the proxy's answer, follow the kind's own answer.
                            if (tunnel.leftover().isReadable()) {
                                record.down(tunnel.leftover().readableBytes());
                                client.writeAndFlush(tunnel.leftover());
                            } else {
                                tunnel.leftover().release();
                            }
                        }
                        case UpstreamProxy.Tunnel tunnel -> {
                            tunnel.leftover().release();
                            then.abandoned(client);
                            tunnel.channel().close();
                        }
                        case UpstreamProxy.Failed failed
                        when !client.isActive() -> {
                            record.fail(failed.code());
                            then.abandoned(client);
                        }
                        case UpstreamProxy.Failed failed -> {
                            log.debug("connection {}: {}", record.id(), failed.detail());
                            if (failed.status() != 0) {
                                record.upstreamStatus(failed.status());
                            }
                            record.fail(failed.code());
                            then.refused(
                                    client,
                                    failed.code(),
                                    failed.status() == 0 ? "" : "the upstream proxy answered " + failed.status());
                        }
                    }
                });
    }

    /**
     * A kind failed to take over a connected tunnel: fail closed, both sides closed and the record
     * settled, rather than leave two open channels that nothing reads.
     */
    private static void broken(Channel client, Channel upstream, RuntimeException e) {
        ConnectionRecord record = ConnectionRecord.of(client);
        log.warn("connection {}: the tunnel could not start: {}", record.id(), e.toString());
        record.fail(DenyCode.RELAY_ERROR);
        upstream.close();
        client.close();
    }
}
