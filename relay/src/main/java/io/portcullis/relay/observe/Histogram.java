package io.portcullis.relay.observe;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed buckets, cheap enough for the hot path: one bucket add and one
 * sum add per observation, no lock and no allocation. A scrape reads it as a snapshot.
 */
public final class Histogram {
    /** Upper bounds in seconds: 100 µs to 10 s, wide enough for a cached answer and a slow DNS server. */
    private static final double[] BOUNDS = {
        0.0001,
        0.00025,
        0.0005,
        0.001,
        0.0025,
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1.0,
        2.5,
        5.0,
        10.0,
        Double.POSITIVE_INFINITY
    };

    private static final long[] BOUND_NANOS = Arrays.stream(BOUNDS, 0, BOUNDS.length - 1)
            .mapToLong(bound -> BigDecimal.valueOf(bound).movePointRight(9).longValueExact())
            .toArray();

    private final String name;
    private final String help;
    private final LongAdder[] buckets = new LongAdder[BOUNDS.length];
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

    HistogramSnapshot snapshot() {
        long[] counts = new long[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            counts[i] = buckets[i].sum();
        }
        return HistogramSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS, counts))
                        .sum(sumNanos.sum() / 1e9)
                        .build())
                .build();
    }
}
