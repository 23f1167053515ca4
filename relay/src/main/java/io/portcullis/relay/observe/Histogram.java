package io.portcullis.relay.observe;

import java.math.BigDecimal;
import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed buckets, cheap enough for the hot path: one bucket add and one
 * sum add per observation, no lock and no allocation.
 */
public final class Histogram {
    /** Upper bounds in seconds: 100 µs to 10 s, wide enough for a cached answer and a slow DNS server. */
    private static final String[] BOUNDS = {
        "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0",
        "2.5", "5.0", "10.0"
    };

    private static final long[] BOUND_NANOS = new long[BOUNDS.length];

    static {
        for (int i = 0; i < BOUNDS.length; i++) {
            BOUND_NANOS[i] = new BigDecimal(BOUNDS[i]).movePointRight(9).longValueExact();
        }
    }

    private final String name;
    private final String help;
    private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();

    Histogram(String name, String help) {
        this.name = name;
        this.help = help;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    /** Counts one observation of {@code nanos}; a negative value counts as zero. */
    public void observe(long nanos) {
        long value = Math.max(0, nanos);
        int i = 0;
        while (i < BOUND_NANOS.length && value > BOUND_NANOS[i]) {
            i++;
        }
        buckets[i].increment();
        sumNanos.add(value);
    }

    /** The number of observations so far. */
    public long count() {
        long count = 0;
        for (LongAdder bucket : buckets) {
            count += bucket.sum();
        }
        return count;
    }

    void write(StringBuilder out) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" histogram\n");
        long cumulative = 0;
        for (int i = 0; i < BOUNDS.length; i++) {
            cumulative += buckets[i].sum();
            out.append(name)
                    .append("_bucket{le=\"")
                    .append(BOUNDS[i])
                    .append("\"} ")
                    .append(cumulative)
                    .append('\n');
        }
        cumulative += buckets[BOUNDS.length].sum();
        out.append(name).append("_bucket{le=\"+Inf\"} ").append(cumulative).append('\n');
        out.append(name).append("_sum ").append(sumNanos.sum() / 1e9).append('\n');
        out.append(name).append("_count ").append(cumulative).append('\n');
    }
}
