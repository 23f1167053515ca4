package io.portcullis.relay.generation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Closes what a replaced configuration generation opened (its leases on the shared parts, D63),
 * once the decisions it started have had time to finish (a decision holds its judge until the
 * verdict, bounded by the DNS timeout and the owner check), or at once when the relay closes. At
 * most {@link #MAX_WAITING} generations wait: a reload past that closes the oldest at once, so
 * what reloads back to back hold is bounded whatever they change (a decision of that generation
 * still under way is then refused, {@code owner-error} or {@code dns-failed}).
 */
public final class Retirement {
    /** The most replaced generations that wait for their decisions. */
    public static final int MAX_WAITING = 4;

    /** Oldest first; guarded by itself. */
    private final Deque<Generation> waiting = new ArrayDeque<>();

    public void retire(Generation old, Duration grace) {
        if (old.owned().isEmpty()) {
            return;
        }
        Generation early;
        synchronized (waiting) {
            waiting.addLast(old);
            early = waiting.size() > MAX_WAITING ? waiting.pollFirst() : null;
        }
        if (early != null) {
            closeQuietly(early.owned(), null);
        }
        Thread.ofVirtual().name("retire-generation-" + old.number()).start(() -> {
            try {
                Thread.sleep(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (remove(old)) {
                closeQuietly(old.owned(), null);
            }
        });
    }

    private boolean remove(Generation old) {
        synchronized (waiting) {
            return waiting.remove(old);
        }
    }

    /** Closes every generation still waiting; failures are added to {@code failures}. */
    public void closeAll(List<RuntimeException> failures) {
        List<Generation> all;
        synchronized (waiting) {
            all = List.copyOf(waiting);
        }
        for (Generation old : all) {
            if (remove(old)) {
                for (AutoCloseable resource : old.owned().reversed()) {
                    try {
                        resource.close();
                    } catch (Exception e) {
                        failures.add(
                                e instanceof RuntimeException r ? r : new UncheckedIOException(new IOException(e)));
                    }
                }
            }
        }
    }

    /** Closes {@code resources} in reverse; failures are suppressed into {@code into}, or dropped when it is null. */
    public static void closeQuietly(List<AutoCloseable> resources, @Nullable Exception into) {
        List<RuntimeException> failures = new ArrayList<>();
        for (AutoCloseable resource : resources.reversed()) {
            try {
                resource.close();
            } catch (Exception e) {
                failures.add(e instanceof RuntimeException r ? r : new UncheckedIOException(new IOException(e)));
            }
        }
        if (into != null) {
            failures.forEach(into::addSuppressed);
        }
    }
}
