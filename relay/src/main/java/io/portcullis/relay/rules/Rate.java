package io.portcullis.relay.rules;

import io.portcullis.relay.checks.Checks;

/**
 * A token bucket (SPEC R16's new-connection rate), full at the start. The rate and depth are given
 * at each take, so a reload that changes them holds from the next connection on. Pure but for the
 * time its caller passes in; safe to share between event loops, since a spawn's sockets may sit on
 * several.
 */
public final class Rate {
    private double tokens = Double.NaN;
    private long refilled;

    /** A bucket that starts full at its first take. */
    public Rate() {}

    /**
     * Takes one token at {@code nowNanos} ({@link System#nanoTime()}), the bucket filling at
     * {@code perSecond} and holding at most {@code burst}; false when none is left.
     */
    public synchronized boolean tryTake(long nowNanos, int perSecond, int burst) {
        Checks.positive("perSecond", perSecond);
        Checks.positive("burst", burst);
        if (Double.isNaN(tokens)) {
            tokens = burst;
            refilled = nowNanos;
        } else if (nowNanos > refilled) {
            // A time before the last one (another thread's, read earlier) adds nothing and moves nothing back.
            tokens = Math.min(burst, tokens + (nowNanos - refilled) * (perSecond / 1e9));
            refilled = nowNanos;
        } else {
            tokens = Math.min(burst, tokens);
        }
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
}
