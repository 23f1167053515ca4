package io.portcullis.relay.accept;

import io.netty.channel.Channel;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Open-connection budgets (SPEC R16): one for the whole relay, one per spawn. A connection holds
 * its place in both from accept until its channel closes. The sizes come from the configuration generation
 * in use when the connection is placed, so a reload changes them for new connections only.
 *
 * <p>Fairness: the last quarter of the relay's places goes only to spawns that hold less than
 * their fair share (the relay's budget divided by the spawns open), so one busy spawn cannot
 * take every place when the relay's budget is smaller than a spawn's times the spawns open.
 */
public final class Budgets {
    /**
     * The most refused connections that hold no place in any budget and may linger at once before
     * their close (SPEC R17): a quarter of the descriptors kept in reserve ({@link Descriptors}).
     */
    public static final int LINGERING = Descriptors.RESERVE / 4;

    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger lingering = new AtomicInteger();
    /** The most places this budget has whatever the configuration says: the relay's descriptor bound. */
    private final int cap;

    /** A spawn's budget: its size is the configuration's alone. */
    public Budgets() {
        this(Integer.MAX_VALUE);
    }

    /** The relay's budget, never more than {@code cap} places (see {@link Descriptors#connections()}). */
    public Budgets(int cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("cap: " + cap + " (expected: >= 1)");
        }
        this.cap = cap;
    }

    /**
     * Takes a place in {@code spawn}'s budget and the {@code relay}'s for {@code channel}, given back
     * when it closes; empty when both had room, else the code of the budget that is full.
     */
    static Optional<DenyCode> acquire(
            Channel channel, Budgets spawn, Budgets relay, HostConfig.Limits limits, int spawnsOpen) {
        Optional<DenyCode> full = take(spawn, relay, limits, spawnsOpen);
        if (full.isEmpty()) {
            channel.closeFuture().addListener(f -> {
                spawn.open.decrementAndGet();
                relay.open.decrementAndGet();
            });
        }
        return full;
    }

    /** Takes a place in both budgets; empty when both had room, else the code of the one that is full. */
    static Optional<DenyCode> take(Budgets spawn, Budgets relay, HostConfig.Limits limits, int spawnsOpen) {
        int relayMax = Math.min(limits.relayConnections(), relay.cap);
        if (!spawn.tryTake(limits.spawnConnections())) {
            return FULL_SPAWN;
        }
        int reserve = relayMax / 4;
        int fairShare = Math.max(1, relayMax / Math.max(1, spawnsOpen));
        boolean overShare = spawn.open.get() > fairShare && relay.open.get() >= relayMax - reserve;
        if (overShare || !relay.tryTake(relayMax)) {
            spawn.open.decrementAndGet();
            return FULL_RELAY;
        }
        return Optional.empty();
    }

    private static final Optional<DenyCode> FULL_SPAWN = Optional.of(DenyCode.LIMIT_SPAWN);
    private static final Optional<DenyCode> FULL_RELAY = Optional.of(DenyCode.LIMIT_RELAY);

    private boolean tryTake(int max) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Takes one of this budget's {@link #LINGERING} places for {@code channel}, a connection refused
     * because a budget was full, until it closes; false when every place is taken, and the refusal
     * must then close at once. A refused connection that lingers holds a descriptor no connection
     * budget counts, so its number is bounded here.
     */
    public boolean tryLinger(Channel channel) {
        if (lingering.incrementAndGet() > LINGERING) {
            lingering.decrementAndGet();
            return false;
        }
        channel.closeFuture().addListener(f -> lingering.decrementAndGet());
        return true;
    }

    public void release() {
        open.decrementAndGet();
    }

    public int open() {
        return open.get();
    }
}
