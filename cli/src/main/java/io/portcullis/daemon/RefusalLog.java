package io.portcullis.daemon;

import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Says each kind of refused control connection once (a peer namespace, a uid), so that a peer
 * that connects in a loop cannot fill the log. It remembers at most {@code kinds} of them; past
 * that, a refusal of a kind not seen yet is counted, and the count said at most once per
 * {@code every}.
 */
final class RefusalLog {
    private final Consumer<String> sink;
    private final int kinds;
    private final long everyNanos;
    private final LongSupplier nanoTime;
    private final Set<String> said = new HashSet<>();
    private long unsaid;
    private long lastCount;
    private boolean counted;

    /** @param nanoTime the clock ({@link System#nanoTime} but in tests) */
    RefusalLog(Consumer<String> sink, int kinds, Duration every, LongSupplier nanoTime) {
        this.sink = Objects.requireNonNull(sink, "sink");
        if (kinds < 1) {
            throw new IllegalArgumentException("kinds: " + kinds + " (expected: > 0)");
        }
        this.kinds = kinds;
        this.everyNanos = every.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** A connection was refused; {@code kind} says which, {@code why} is the line for its first. */
    synchronized void refused(String kind, String why) {
        if (said.contains(kind)) {
            return;
        }
        if (said.size() < kinds) {
            said.add(kind);
            sink.accept(why + "; later refusals of this peer are not logged");
            return;
        }
        unsaid++;
        long now = nanoTime.getAsLong();
        if (!counted || now - lastCount >= everyNanos) {
            counted = true;
            lastCount = now;
            sink.accept(unsaid + " more control connections refused, from peers beyond the " + kinds
                    + " logged one by one (the last: " + why + ")");
            unsaid = 0;
        }
    }
}
