package io.portcullis.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkersTest {

    @Test
    void busyLoopsBeyondTheBoundRunOnVirtualThreads() throws InterruptedException {
        Workers workers = new Workers();
        int jobs = Workers.PLATFORM_THREADS + 3;
        CountDownLatch started = new CountDownLatch(jobs);
        CountDownLatch release = new CountDownLatch(1);
        ConcurrentLinkedQueue<Boolean> virtual = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < jobs; i++) {
            workers.run(() -> {
                virtual.add(Thread.currentThread().isVirtual());
                started.countDown();
                awaitQuietly(release);
            });
        }
        try {
            assertTrue(started.await(10, TimeUnit.SECONDS), "every job started");
        } finally {
            release.countDown();
        }
        List<Boolean> kinds = List.copyOf(virtual);
        assertEquals(Workers.PLATFORM_THREADS, kinds.stream().filter(v -> !v).count(), kinds::toString);
        assertEquals(3, kinds.stream().filter(v -> v).count(), kinds::toString);
    }

    @Test
    void anIdleThreadIsReusedForTheNextConnection() throws InterruptedException {
        Workers workers = new Workers();
        ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < 3; i++) {
            CountDownLatch done = new CountDownLatch(1);
            workers.run(() -> {
                threads.add(Thread.currentThread());
                done.countDown();
            });
            assertTrue(done.await(10, TimeUnit.SECONDS));
            Thread.sleep(20);
        }
        assertEquals(1, threads.stream().distinct().count(), threads::toString);
        assertFalse(threads.peek().isVirtual());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
