package io.portcullis.relay.record;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.judge.Judged;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Took;
import io.portcullis.relay.policy.Verdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection did so far; it becomes a {@link Decision} exactly once, when the client's
 * channel closes, and once before that, {@linkplain Decision#open() open}, when a connection a
 * channel carries reached its target (SPEC R17). The bytes it carries are added to its spawn's
 * {@link Traffic} as they move. Confined to that channel's event loop: handlers hop back to it
 * before they write here.
 */
public final class ConnectionRecord {
    private static final Logger log = LoggerFactory.getLogger(ConnectionRecord.class);
    private static final AttributeKey<ConnectionRecord> KEY = AttributeKey.valueOf(ConnectionRecord.class, "record");
    /** The longest reason a line carries; longer ones are cut. */
    static final int MAX_REASON = 1024;

    private final String spawn;
    private final long id;
    private final InstantSource clock;
    private final Instant start;
    private final DecisionSink sink;
    private final Traffic traffic;
    /** Whether a channel carries it: only then is it written open when its target answers. */
    private final boolean carried;

    private String kind = "unknown";
    private Optional<String> target = Optional.empty();
    private List<InetAddress> resolved = List.of();
    private Optional<InetSocketAddress> dialed = Optional.empty();
    /** The first refusal or failure; empty while nothing refused it (the line then says allow). */
    private Optional<Settled> settled = Optional.empty();
    /** Why the verdict and code are what they are; empty until the judge or a code says. */
    private Optional<String> reason = Optional.empty();

    private Optional<OwnerEvidence> owner = Optional.empty();
    private long bytesUp;
    private long bytesDown;
    private boolean connected;
    private boolean opened;
    private boolean finished;
    private long generation;
    private long revision;
    private Took took = Took.NOTHING;
    /** How long the dial took; negative until one was made. */
    private long connectNanos = -1;

    private Optional<Decision.End> end = Optional.empty();
    private Optional<Decision.Shadow> shadow = Optional.empty();
    private Optional<Decision.Upstream> upstream = Optional.empty();
    private Optional<String> method = Optional.empty();

    private ConnectionRecord(
            String spawn, long id, InstantSource clock, DecisionSink sink, Traffic traffic, boolean carried) {
        this.spawn = Objects.requireNonNull(spawn, "spawn");
        this.id = id;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.start = clock.instant();
        this.sink = Objects.requireNonNull(sink, "sink");
        this.traffic = Objects.requireNonNull(traffic, "traffic");
        this.carried = carried;
    }

    /**
     * Starts the record of {@code channel}'s connection, counted in {@code traffic} as accepted; it
     * is written when the channel closes.
     */
    public static ConnectionRecord attach(
            Channel channel, String spawn, long id, InstantSource clock, DecisionSink sink, Traffic traffic) {
        ConnectionRecord record = new ConnectionRecord(spawn, id, clock, sink, traffic, true);
        traffic.accepted();
        channel.attr(KEY).set(record);
        // As a task, so that the line is written after every other close listener (budgets) ran.
        channel.closeFuture().addListener(f -> channel.eventLoop().execute(record::finish));
        return record;
    }

    /**
     * A record that no channel carries: one query to the namespace's DNS (SPEC R24). The caller
     * writes it with {@link #finish()}, on one thread.
     */
    public static ConnectionRecord detached(String spawn, long id, InstantSource clock, DecisionSink sink) {
        return new ConnectionRecord(spawn, id, clock, sink, Traffic.own(), false);
    }

    /** The record of {@code channel}'s connection. */
    public static ConnectionRecord of(Channel channel) {
        ConnectionRecord record = channel.attr(KEY).get();
        if (record == null) {
            throw new IllegalStateException(
                    "channel " + channel + ": no connection record (expected: attached on accept)");
        }
        return record;
    }

    public long id() {
        return id;
    }

    public String spawn() {
        return spawn;
    }

    /** The host configuration generation this connection is judged with. */
    public void generation(long value) {
        generation = value;
    }

    /** The revision of the spawn's policy this connection is judged with. */
    public void revision(long value) {
        revision = value;
    }

    public void kind(String value) {
        kind = Objects.requireNonNull(value, "kind");
    }

    public void target(String value) {
        target = Optional.of(value);
    }

    /** The request's method on the proxy port; the person's line names it, the JSON line does not. */
    public void method(String value) {
        method = Optional.of(value);
    }

    public void resolved(List<InetAddress> addresses) {
        resolved = List.copyOf(addresses);
    }

    public void owner(OwnerEvidence evidence) {
        owner = Optional.of(evidence);
    }

    /** The relay is about to dial {@code address}; the line names the last address dialed. */
    public void dialing(InetSocketAddress address) {
        dialed = Optional.of(address);
    }

    /**
     * The connection goes through the upstream proxy at {@code proxy} (SPEC R25), which is asked
     * {@code sent}; the line's {@code dialed} stays the checked address the proxy is told of.
     */
    public void upstream(InetSocketAddress proxy, String sent) {
        upstream = Optional.of(new Decision.Upstream(proxy, sent, Optional.empty()));
    }

    /** What the upstream proxy answered to the CONNECT, or to the plain HTTP request sent through it. */
    public void upstreamStatus(int status) {
        upstream = upstream.map(through -> new Decision.Upstream(through.proxy(), through.sent(), Optional.of(status)));
    }

    /** How long the decision's DNS lookup and owner check took, where no {@link #judged} says it. */
    public void took(Took value) {
        took = Objects.requireNonNull(value, "value");
    }

    /** The dial, every address tried, took {@code nanos}. */
    public void connectTook(long nanos) {
        connectNanos = Math.max(0, nanos);
    }

    /**
     * The last address dialed answered; the tunnel is up. A connection a channel carries is written
     * now, open, so that its decision is in the log while it carries bytes.
     */
    public void connected() {
        connected = true;
        if (carried && !opened && settled.isEmpty()) {
            opened = true;
            sink.opened(decision(true));
        }
    }

    /** Refused; the first refusal or failure stands, and the code's sentence is its reason. */
    public void deny(DenyCode code) {
        settle(Decision.Result.DENY, code, "");
    }

    /** Refused because {@code detail} (its reason; the code's sentence when empty); the first refusal or failure stands. */
    public void deny(DenyCode code, String detail) {
        settle(Decision.Result.DENY, code, detail);
    }

    /** Allowed but failed (upstream unreachable, a relay error). The first refusal or failure stands. */
    public void fail(DenyCode code) {
        settle(Decision.Result.ERROR, code, "");
    }

    /** Failed because {@code detail} (its reason; the code's sentence when empty); the first refusal or failure stands. */
    public void fail(DenyCode code, String detail) {
        settle(Decision.Result.ERROR, code, detail);
    }

    private void settle(Decision.Result outcome, DenyCode code, String detail) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(detail, "detail");
        if (settled.isEmpty()) {
            settled = Optional.of(new Settled(outcome, code));
            reason = Optional.of(detail.isEmpty() ? code.sentence() : detail);
        }
    }

    /** Why it was allowed, where no judge said (the namespace's DNS answering from the policy itself). */
    public void reason(String why) {
        if (settled.isEmpty()) {
            reason = Optional.of(why);
        }
    }

    private record Settled(Decision.Result outcome, DenyCode code) {}

    /**
     * What the spawn's judge answered: the addresses, what the owner check saw, and the shadow
     * policy's verdict (SPEC R26), kept only when it differs from the enforced one.
     */
    public void judged(Judged judged) {
        Verdict verdict = judged.verdict();
        took = judged.took();
        reason(
                switch (verdict) {
                    case Verdict.Allow allow -> allow.detail();
                    case Verdict.Deny deny -> deny.detail();
                });
        resolved(verdict.resolved());
        verdict.owner().ifPresent(this::owner);
        Optional<Decision.Shadow> said = switch (judged.shadow()) {
            case Judged.None none -> Optional.empty();
            case Judged.Unknown unknown -> Optional.of(new Decision.Shadow(Decision.Shadow.UNKNOWN, Optional.empty()));
            case Judged.Said answer -> Optional.of(shadowOf(answer.verdict()));
        };
        shadow = said.filter(shown -> !shown.equals(shadowOf(verdict)));
    }

    private static Decision.Shadow shadowOf(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Allow allow -> new Decision.Shadow(Decision.Shadow.ALLOW, Optional.empty());
            case Verdict.Deny deny -> new Decision.Shadow(Decision.Shadow.DENY, Optional.of(deny.code()));
        };
    }

    /** The upstream side failed (a reset) and the client was reset in turn; the first end stands. */
    public void upstreamReset() {
        if (end.isEmpty()) {
            end = Optional.of(Decision.End.UPSTREAM_RESET);
        }
    }

    /** The client side failed (a reset) and the upstream was reset in turn; the first end stands. */
    public void clientReset() {
        if (end.isEmpty()) {
            end = Optional.of(Decision.End.CLIENT_RESET);
        }
    }

    /** {@code bytes} went from the client to the target: one read or write, never a byte at a time. */
    public void up(long bytes) {
        bytesUp += bytes;
        traffic.up(bytes);
    }

    /** {@code bytes} went from the target to the client. */
    public void down(long bytes) {
        bytesDown += bytes;
        traffic.down(bytes);
    }

    /**
     * What every handler of a client's connection does in {@code exceptionCaught}: one log line with
     * the connection id, the record settled (unless it was settled already), and close. An I/O
     * error there is the client's socket failing (a reset, mostly), so the record says {@code
     * client-closed}; anything else is {@code relay-error}. A program that resets its connections
     * cannot fill the log with the relay's errors.
     */
    public static void closeOnFailure(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord record = of(ctx.channel());
        log.debug("connection {}: {}", record.id(), cause.toString());
        record.fail(cause instanceof IOException ? DenyCode.CLIENT_CLOSED : DenyCode.RELAY_ERROR);
        ctx.close();
    }

    /** Writes the decision line; later calls do nothing. */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        if (settled.isEmpty() && !connected) {
            fail(DenyCode.CLIENT_CLOSED);
        }
        sink.accept(decision(opened));
    }

    /** The record as it stands now. */
    private Decision decision(boolean open) {
        Instant now = clock.instant();
        return new Decision(
                start,
                spawn,
                id,
                kind,
                open,
                target,
                resolved,
                dialed,
                settled.map(Settled::outcome).orElse(Decision.Result.ALLOW),
                settled.map(Settled::code),
                bounded(reason.orElse(settled.isEmpty() ? "allowed" : "")),
                owner,
                bytesUp,
                bytesDown,
                Math.max(0, Duration.between(start, now).toMillis()),
                new Decision.Timings(micros(took.dnsNanos()), micros(took.ownerNanos()), micros(connectNanos)),
                generation,
                revision,
                end,
                shadow,
                upstream,
                method);
    }

    private static OptionalLong micros(OptionalLong nanos) {
        return nanos.isPresent() ? OptionalLong.of(nanos.getAsLong() / 1000) : OptionalLong.empty();
    }

    private static OptionalLong micros(long nanos) {
        return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos / 1000);
    }

    /** At most {@link #MAX_REASON} characters: a reason names a target and an address or two, never more. */
    private static String bounded(String reason) {
        return reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON) + "…";
    }
}
