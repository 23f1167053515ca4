package io.portcullis.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * The operational log's bound (SPEC R17): each kind of line (its logger, level and message
 * template) has a bucket of {@link #BURST} lines that refills at {@link #PER_SECOND} a second; a
 * line past that is dropped and counted, and {@link #drain()} hands the counts over to be said.
 * At most {@link #MAX_KINDS} kinds are followed (a message made by concatenation makes a kind of
 * each line); past that, new kinds share one bucket. Time comes from {@code nanos}, so tests
 * decide it.
 */
final class RateLimit {
    static final int BURST = 50;
    static final int PER_SECOND = 2;
    static final int MAX_KINDS = 4096;

    /** The kind that every kind past {@link #MAX_KINDS} counts as. */
    static final Kind OTHERS = new Kind(JsonLog.class.getName(), Level.WARN, "(lines of kinds past the first 4096)");

    private static final long NANOS_PER_LINE = 1_000_000_000L / PER_SECOND;

    private final LongSupplier nanos;
    private final Map<Kind, Bucket> buckets = new ConcurrentHashMap<>();

    RateLimit(LongSupplier nanos) {
        this.nanos = Objects.requireNonNull(nanos, "nanos");
    }

    /** One kind of line: where it comes from, its level, and its message before the arguments went in. */
    record Kind(String logger, Level level, String template) {}

    /** How many lines of a kind were dropped since it was last said. */
    record Dropped(Kind kind, long count) {}

    /** Whether a line of {@code kind} may be written now; when not, it is counted as dropped. */
    boolean admit(Kind kind) {
        Bucket bucket = buckets.get(kind);
        if (bucket == null) {
            bucket = buckets.size() < MAX_KINDS
                    ? buckets.computeIfAbsent(kind, k -> new Bucket(nanos.getAsLong()))
                    : buckets.computeIfAbsent(OTHERS, k -> new Bucket(nanos.getAsLong()));
        }
        return bucket.take(nanos.getAsLong());
    }

    /** The kinds with lines dropped since the last drain, with their counts (set back to none). */
    List<Dropped> drain() {
        List<Dropped> dropped = new ArrayList<>();
        buckets.forEach((kind, bucket) -> {
            long count = bucket.drain();
            if (count > 0) {
                dropped.add(new Dropped(kind, count));
            }
        });
        return dropped;
    }

    /** Whether any kind has drops not drained yet. */
    boolean pending() {
        return buckets.values().stream().anyMatch(Bucket::pending);
    }

    /** A token bucket that counts what it refuses. */
    private static final class Bucket {
        private long tokens = BURST;
        private long refilled;
        private long dropped;

        Bucket(long now) {
            this.refilled = now;
        }

        synchronized boolean take(long now) {
            long earned = (now - refilled) / NANOS_PER_LINE;
            if (earned > 0) {
                tokens = Math.min(BURST, tokens + earned);
                refilled += earned * NANOS_PER_LINE;
            }
            if (tokens > 0) {
                tokens--;
                return true;
            }
            dropped++;
            return false;
        }

        synchronized long drain() {
            long count = dropped;
            dropped = 0;
            return count;
        }

        synchronized boolean pending() {
            return dropped > 0;
        }
    }
}
