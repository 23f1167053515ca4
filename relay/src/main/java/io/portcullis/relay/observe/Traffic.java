package io.portcullis.relay.observe;

import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a spawn's connections have carried so far, counted as it moves (SPEC R17): connections at
 * accept, bytes at each read that is passed on (one add per read or write, never per byte), so a
 * tunnel that is still open shows what it moved. A spawn's counts add to the relay's as well.
 * Any thread adds; a reader sees the sums at the time it reads.
 */
public final class Traffic {
    private final LongAdder connections = new LongAdder();
    private final LongAdder bytesUp = new LongAdder();
    private final LongAdder bytesDown = new LongAdder();
    /** The relay's counts, which a spawn's add to; empty for the relay's own. */
    private final Optional<Traffic> relay;

    private Traffic(Optional<Traffic> relay) {
        this.relay = relay;
    }

    /** Counts of their own, added to nothing else: the relay's, or a record's that no spawn owns (tests). */
    public static Traffic own() {
        return new Traffic(Optional.empty());
    }

    /** A spawn's counts, which add to {@code this} (the relay's) too. */
    Traffic spawn() {
        return new Traffic(Optional.of(this));
    }

    /** Connections accepted, since the start. */
    public long connections() {
        return connections.sum();
    }

    /** Bytes carried from clients to their targets, since the start. */
    public long bytesUp() {
        return bytesUp.sum();
    }

    /** Bytes carried from targets to their clients, since the start. */
    public long bytesDown() {
        return bytesDown.sum();
    }

    /** One connection accepted; the relay's connection records count with this and the two below. */
    public void accepted() {
        connections.increment();
        if (relay.isPresent()) {
            relay.get().connections.increment();
        }
    }

    public void up(long bytes) {
        bytesUp.add(bytes);
        if (relay.isPresent()) {
            relay.get().bytesUp.add(bytes);
        }
    }

    public void down(long bytes) {
        bytesDown.add(bytes);
        if (relay.isPresent()) {
            relay.get().bytesDown.add(bytes);
        }
    }
}
