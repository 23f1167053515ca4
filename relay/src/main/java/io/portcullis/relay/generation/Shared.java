package io.portcullis.relay.generation;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A part that consecutive configuration generations share while the part of the host
 * configuration it is made from stays equal (its key): made once per new key, held by every
 * generation that leases it, and closed once none holds it and a part of another key replaced it.
 *
 * @param <K> what the part is made from; equal keys make interchangeable parts
 * @param <V> the part
 */
final class Shared<K, V extends AutoCloseable> implements AutoCloseable {
    /** Makes a part; a failure leaves the current part current. */
    @FunctionalInterface
    interface Maker<K, V> {
        V make(K key) throws IOException;
    }

    private final Maker<K, V> maker;
    /** The part of the last key asked for, held once by this; null before the first and once closed. */
    private @Nullable Part<K, V> current;

    Shared(Maker<K, V> maker) {
        this.maker = Objects.requireNonNull(maker, "maker");
    }

    /**
     * The part for {@code key}: the current one when its key is equal, else a new one, which
     * becomes current. Close the lease when the generation that asked is retired.
     */
    synchronized Lease<V> lease(K key) throws IOException {
        if (current == null || !current.key.equals(key)) {
            Part<K, V> made = new Part<>(key, maker.make(key));
            Part<K, V> replaced = current;
            current = made;
            if (replaced != null) {
                replaced.release();
            }
        }
        current.refs.incrementAndGet();
        return new Lease<>(current);
    }

    /** Lets go of the current part; it closes once no generation holds it. */
    @Override
    public synchronized void close() {
        if (current != null) {
            current.release();
            current = null;
        }
    }

    private static final class Part<K, V extends AutoCloseable> {
        private final K key;
        private final V value;
        private final AtomicInteger refs = new AtomicInteger(1);

        Part(K key, V value) {
            this.key = key;
            this.value = value;
        }

        void release() {
            if (refs.decrementAndGet() == 0) {
                Retirement.closeQuietly(List.of(value), null);
            }
        }
    }

    /** One generation's hold on a part; closing it lets go, once. */
    static final class Lease<V extends AutoCloseable> implements AutoCloseable {
        private final Part<?, V> part;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(Part<?, V> part) {
            this.part = part;
        }

        V get() {
            return part.value;
        }

        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                part.release();
            }
        }
    }
}
