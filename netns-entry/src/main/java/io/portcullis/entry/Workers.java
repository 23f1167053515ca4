package io.portcullis.entry;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads of the copy loops: platform threads, kept for a while after their connection ends so
 * that a burst of new connections does not pay for thread creation, up to a bound; virtual threads
 * beyond it.
 *
 * <p>Not virtual threads: a virtual thread waiting for a socket is woken through the JDK's poller
 * and then scheduled on a carrier, two hand-offs per chunk, while a platform thread blocked in
 * {@code read} is woken by the kernel directly. That hand-off was most of the entry's time per
 * request in a tunnel (docs/benchmarks.md).
 */
final class Workers {

    /** How long an idle thread waits for the next connection before it ends. */
    static final Duration KEEP_IDLE = Duration.ofSeconds(30);

    /**
     * Beyond this many busy copy loops, new ones run on virtual threads: many connections at once
     * then share the carriers instead of making the kernel switch between hundreds of threads, and
     * idle connections hold no stack.
     */
    static final int PLATFORM_THREADS = 32;

    private final ThreadPoolExecutor pool;

    Workers() {
        ThreadFactory threads =
                Thread.ofPlatform().name("copy-", 0).daemon(true).factory();
        pool = new ThreadPoolExecutor(
                0,
                PLATFORM_THREADS,
                KEEP_IDLE.toMillis(),
                TimeUnit.MILLISECONDS,
                new SynchronousQueue<>(),
                threads,
                (work, full) -> Thread.ofVirtual().start(work));
    }

    /** Runs {@code work} on an idle thread, or a new one when none is idle. */
    void run(Runnable work) {
        pool.execute(work);
    }
}
