package io.portcullis.owner;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.portcullis.owner.docker.DockerNetworks;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The owner check with its own executor and a short answer cache keyed by the whole query (R35).
 * The caller never blocks: a miss runs the judge on the executor, a hit is an already completed
 * future. Every failure, the executor's included, completes with a refusal.
 */
final class CachedOwnerCheck implements ManagedOwnerCheck {
    private static final int THREADS = 2;
    private static final long MAX_ANSWERS = 10_000;

    private final ExecutorService executor;
    private final OwnerJudge judge;
    /** Null for a zero window: every connection asks again. */
    private final @Nullable AsyncLoadingCache<OwnerQuery, OwnerAnswer> cache;

    private final AutoCloseable resources;
    private final Duration deadline;
    /** The answer of a check that took longer than the deadline, made once (it is the same every time). */
    private final OwnerAnswer late;

    private volatile boolean closed;

    /**
     * @param deadline how long a caller waits before the answer is a refusal: a read of a process
     *     stuck in the kernel, or a netlink or Docker call that never returns, must not hang the connection
     */
    CachedOwnerCheck(OwnerJudge judge, Duration window, Duration deadline, Ticker ticker, AutoCloseable resources) {
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "owner-check-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.judge = judge;
        this.cache = window.isZero()
                ? null
                : Caffeine.newBuilder()
                        .executor(this::upkeep)
                        .ticker(ticker)
                        .expireAfterWrite(window)
                        .maximumSize(MAX_ANSWERS)
                        .buildAsync(judge::answer);
        this.resources = resources;
        this.deadline = deadline;
        this.late = OwnerAnswer.deny(OwnerCode.ERROR, "owner check took longer than " + deadline, OwnerEvidence.NONE);
    }

    /**
     * Runs the cache's work on the executor. A load that completes while the check closes still
     * makes Caffeine schedule its upkeep; that then runs here rather than being refused (and
     * logged as a warning). No load reaches this after close: {@link #check} refuses first.
     */
    private void upkeep(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            if (!closed) {
                throw e;
            }
            task.run();
        }
    }

    @Override
    public CompletableFuture<OwnerAnswer> check(OwnerQuery query) {
        if (closed) {
            return CompletableFuture.completedFuture(failed(new IllegalStateException("the owner check is closed")));
        }
        try {
            CompletableFuture<OwnerAnswer> answer = cache == null
                    ? CompletableFuture.supplyAsync(() -> judge.answer(query), executor)
                    : cache.get(query);
            return answer.exceptionally(CachedOwnerCheck::failed)
                    .completeOnTimeout(late, deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failed(e));
        }
    }

    @Override
    public DockerNetworks dockerNetworks() {
        return judge.dockerNetworks();
    }

    private static OwnerAnswer failed(Throwable t) {
        return OwnerAnswer.deny(OwnerCode.ERROR, "owner check failed: " + t, OwnerEvidence.NONE);
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
            resources.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("closing the owner check: " + e, e);
        }
    }
}
