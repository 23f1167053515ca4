package io.portcullis.relay.observe;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Judged;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection did so far; it becomes a {@link Decision} exactly once, when the client's
 * channel closes. Confined to that channel's event loop: handlers hop back to it before they
 * write here.
 */
public final class ConnectionRecord {
    private static final Logger log = LoggerFactory.getLogger(ConnectionRecord.class);
    private static final AttributeKey<ConnectionRecord> KEY = AttributeKey.valueOf(ConnectionRecord.class, "record");

    private final String spawn;
    private final long id;
    private final InstantSource clock;
    private final Instant start;
    private final DecisionSink sink;

    private String kind = "unknown";
    private Optional<String> target = Optional.empty();
    private List<InetAddress> resolved = List.of();
    private Optional<InetSocketAddress> dialed = Optional.empty();
    private Decision.Outcome verdict;
    private DenyCode code;
    private Optional<OwnerEvidence> owner = Optional.empty();
    private long bytesUp;
    private long bytesDown;
    private boolean connected;
    private boolean finished;
    private long generation;
    private Optional<Decision.End> end = Optional.empty();
    private Optional<Decision.Shadow> shadow = Optional.empty();
    private Optional<Decision.Upstream> upstream = Optional.empty();
    private Optional<String> method = Optional.empty();

    private ConnectionRecord(String spawn, long id, InstantSource clock, DecisionSink sink) {
        this.spawn = Objects.requireNonNull(spawn, "spawn");
        this.id = id;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.start = clock.instant();
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Starts the record of {@code channel}'s connection; it is written when the channel closes. */
    public static ConnectionRecord attach(
            Channel channel, String spawn, long id, InstantSource clock, DecisionSink sink) {
        ConnectionRecord record = new ConnectionRecord(spawn, id, clock, sink);
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
        return new ConnectionRecord(spawn, id, clock, sink);
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

    /** The relay decided to let it through; the line says allow once an address answered, else client-closed. */
    public void allowed() {
        if (verdict == null) {
            verdict = Decision.Outcome.ALLOW;
        }
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

    /** The last address dialed answered; the tunnel is up. */
    public void connected() {
        connected = true;
    }

    /** Refused; the first refusal or failure stands. */
    public void deny(DenyCode reason) {
        settle(Decision.Outcome.DENY, reason);
    }

    /** Allowed but failed (upstream unreachable, a relay error). The first refusal or failure stands. */
    public void fail(DenyCode reason) {
        settle(Decision.Outcome.ERROR, reason);
    }

    private void settle(Decision.Outcome outcome, DenyCode reason) {
        Objects.requireNonNull(reason, "reason");
        if (code == null) {
            verdict = outcome;
            code = reason;
        }
    }

    /**
     * What the spawn's judge answered: the addresses, what the owner check saw, and the shadow
     * policy's verdict (SPEC R26), kept only when it differs from the enforced one.
     */
    public void judged(Judged judged) {
        Verdict verdict = judged.verdict();
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

    public void up(long bytes) {
        bytesUp += bytes;
    }

    public void down(long bytes) {
        bytesDown += bytes;
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
        if (code == null && !connected) {
            fail(DenyCode.CLIENT_CLOSED);
        }
        Instant now = clock.instant();
        sink.accept(new Decision(
                start,
                spawn,
                id,
                kind,
                target,
                resolved,
                dialed,
                verdict,
                Optional.ofNullable(code),
                owner,
                bytesUp,
                bytesDown,
                Math.max(0, Duration.between(start, now).toMillis()),
                generation,
                end,
                shadow,
                upstream,
                method));
    }
}
