package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.Verdict;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps every tunnel takes after its target is known: wait for the verdict, dial exactly the
 * checked addresses, then copy both ways. Each kind says how it answers: the proxy writes
 * {@code 200} or an error reply, a forward says nothing or closes.
 */
public final class Tunnels {
    private static final Logger log = LoggerFactory.getLogger(Tunnels.class);

    private final Dialer dialer;
    private final long idleMillis;
    private final long helloMillis;
    private final Metrics metrics;

    public Tunnels(Dialer dialer, long idleMillis) {
        this(dialer, idleMillis, DEFAULT_HELLO_MILLIS, new Metrics());
    }

    /** How long a tunnel that must start with a ClientHello waits for it by default: the header timeout's default. */
    public static final long DEFAULT_HELLO_MILLIS = 10_000;

    /**
     * @param helloMillis how long a tunnel that must start with a TLS ClientHello (SPEC R23) waits
     *     for the whole of it
     * @param metrics where the decision and connect latencies go
     */
    public Tunnels(Dialer dialer, long idleMillis, long helloMillis, Metrics metrics) {
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
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
        /** The upstream answered; {@code upstream} has auto-read off and no handlers. */
        void connected(Channel client, Channel upstream);

        /** Refused or failed with {@code code}; the record is settled. */
        void refused(Channel client, DenyCode code);

        /** The client left before the upstream was reached. */
        void abandoned(Channel client);
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
            BiConsumer<Channel, DenyCode> refused) {
        connect(client, verdict, new Then() {
            @Override
            public void connected(Channel channel, Channel upstream) {
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
            public void refused(Channel channel, DenyCode code) {
                early.release();
                refused.accept(channel, code);
            }

            @Override
            public void abandoned(Channel channel) {
                early.release();
            }
        });
    }

    /**
     * Waits for {@code verdict}, dials exactly the checked addresses, and tells {@code then}.
     * The client channel must have auto-read off.
     */
    public void connect(Channel client, CompletableFuture<Verdict> verdict, Then then) {
        ConnectionRecord record = ConnectionRecord.of(client);
        long asked = System.nanoTime();
        verdict.whenCompleteAsync(
                (answer, error) -> {
                    metrics.decision().observe(System.nanoTime() - asked);
                    if (error != null) {
                        log.warn("connection {}: the decision failed: {}", record.id(), error.toString());
                        record.fail(DenyCode.RELAY_ERROR);
                        then.refused(client, DenyCode.RELAY_ERROR);
                        return;
                    }
                    record.resolved(answer.resolved());
                    record.owner(answer.owner());
                    switch (answer) {
                        case Verdict.Deny deny -> {
                            record.deny(deny.code());
                            then.refused(client, deny.code());
                        }
                        case Verdict.Allow allow -> dial(client, allow, then);
                    }
                },
                client.eventLoop());
    }

    private void dial(Channel client, Verdict.Allow allow, Then then) {
        ConnectionRecord record = ConnectionRecord.of(client);
        record.allowed();
        if (!client.isActive()) {
            then.abandoned(client);
            return;
        }
        long dialing = System.nanoTime();
        dialer.dial(client.eventLoop(), allow.dial(), record::dialing).thenAccept(outcome -> {
            metrics.connect().observe(System.nanoTime() - dialing);
            switch (outcome) {
                case Dialer.Connected connected
                when client.isActive() -> {
                    record.connected();
                    then.connected(client, connected.channel());
                }
                case Dialer.Connected connected -> {
                    then.abandoned(client);
                    connected.channel().close();
                }
                case Dialer.Failed failed -> {
                    log.debug("connection {}: {}", record.id(), failed.detail());
                    record.fail(failed.code());
                    then.refused(client, failed.code());
                }
            }
        });
    }
}
