package io.portcullis.relay.decide;

import io.portcullis.relay.policy.Took;
import java.util.OptionalLong;

/**
 * Where a judge notes how long one decision's DNS lookup and owner check took, for its decision
 * line (SPEC R17). The judge writes each before its verdict completes; the reader reads once it
 * has, so the verdict's completion orders the two.
 */
public final class Times {
    private volatile long dnsNanos = -1;
    private volatile long ownerNanos = -1;

    /** Nothing noted yet. */
    public Times() {}

    /** The lookup asked at {@code started} ({@link System#nanoTime()}) answered now. */
    public void dnsSince(long started) {
        dnsNanos = Math.max(0, System.nanoTime() - started);
    }

    /** The owner questions asked at {@code started} ({@link System#nanoTime()}) are all answered now. */
    public void ownerSince(long started) {
        ownerNanos = Math.max(0, System.nanoTime() - started);
    }

    /** What was noted: each empty when it was not asked. */
    public Took took() {
        long dns = dnsNanos;
        long owner = ownerNanos;
        return new Took(
                dns < 0 ? OptionalLong.empty() : OptionalLong.of(dns),
                owner < 0 ? OptionalLong.empty() : OptionalLong.of(owner));
    }
}
