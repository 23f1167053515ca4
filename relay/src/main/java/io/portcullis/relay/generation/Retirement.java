package io.portcullis.relay.generation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes what a replaced configuration generation opened, once the decisions it started have had
 * time to finish (a decision holds its judge until the verdict, bounded by the DNS timeout and
 * the owner check), or at once when the relay closes.
 */
public final class Retirement {
    private final Set<Generation> waiting = ConcurrentHashMap.newKeySet();

    public void retire(Generation old, Duration grace) {
        if (old.owned().isEmpty()) {
            return;
        }
        waiting.add(old);
        Thread.ofVirtual().name("retire-generation-" + old.number()).start(() -> {
            try {
                Thread.sleep(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (waiting.remove(old)) {
                closeQuietly(old.owned(), null);
            }
        });
    }

    /** Closes every generation still waiting; failures are added to {@code failures}. */
    public void closeAll(List<RuntimeException> failures) {
        for (Generation old : List.copyOf(waiting)) {
            if (waiting.remove(old)) {
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
    public static void closeQuietly(List<AutoCloseable> resources, Exception into) {
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
