package io.portcullis.relay.transport;

import io.netty.channel.Channel;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a system call that blocks an event loop on a handed-over socket (SPEC R4, decision D73).
 *
 * <p>{@code O_NONBLOCK} belongs to the open file description, which every copy of a handed-over
 * socket shares: a holder of a copy can make the relay's socket blocking and take the connection
 * or datagram that woke the relay, and the relay's accept or receive then waits, with every
 * connection of every spawn on that loop. The epoll handler reads the flag before each event, but
 * a holder can clear it between that read and the call, and the socket's time-outs are shared too.
 * So every {@link #TICK_MILLIS} this thread posts a heartbeat to each event loop that ran the last
 * one; a loop that has not, and that is found asleep in a socket call on the same descriptor
 * ({@link BlockedCall}) at two ticks in a row, is blocked on it. When that descriptor is a
 * handed-over socket's (by the inode of a duplicate taken then, so a number closed and reused
 * meanwhile is never touched), its channel is stopped and the socket shut down both ways, which
 * ends the call with an error or the end of its input. Nothing else is ever shut down: a loop
 * that is only busy, or asleep anywhere else (its own wait, a lock, a safepoint), is left alone.
 * A loop blocked on a handed-over socket runs again within about two ticks.
 *
 * <p>A shut-down listening socket can be made to listen again by its holder before the woken
 * accept looks at it, and that accept then waits on; so the shutdown is made again a few
 * milliseconds apart, {@link #SHUTDOWNS} times a tick, at each tick the loop stays blocked.
 */
final class LoopWatchdog {
    private static final Logger log = LoggerFactory.getLogger(LoopWatchdog.class);

    /** How often each event loop is sent a heartbeat and, when it has not run the last one, looked at. */
    static final long TICK_MILLIS = 250;

    /** How many times a tick a blocking socket is shut down while its loop stays blocked on it. */
    static final int SHUTDOWNS = 10;

    private static final long SHUTDOWN_PAUSE_MILLIS = 5;

    private final Path tasks;
    private final LongSupplier nanoTime;
    /** The handed-over sockets' channels, by their socket's inode, until they close. */
    private final Map<Long, Channel> adopted = new ConcurrentHashMap<>();

    private final List<Loop> loops = new CopyOnWriteArrayList<>();
    private final AtomicBoolean failedOnce = new AtomicBoolean();
    /** Whether the watchdog's thread runs; it ends once no loop is left. Guarded by this. */
    private boolean running;

    /** @param tasks the directory of this process's threads ({@code /proc/self/task}) */
    LoopWatchdog(Path tasks, LongSupplier nanoTime) {
        this.tasks = tasks;
        this.nanoTime = nanoTime;
    }

    /** Watches a handed-over socket's {@code channel}, whose descriptor is {@code fd}, until it closes. */
    void adopt(Channel channel, int fd) throws Posix.Failure {
        long inode = Posix.inode(fd);
        adopted.put(inode, channel);
        channel.closeFuture().addListener(closed -> adopted.remove(inode, channel));
    }

    /** Watches the event loop {@code executor}; from the loop's own thread, as it starts. */
    Loop started(Executor executor) {
        Loop loop = new Loop(executor, Posix.threadId());
        synchronized (this) {
            loops.add(loop);
            if (!running) {
                running = true;
                Thread.ofPlatform().name("event-loop-watchdog").daemon(true).start(this::run);
            }
        }
        return loop;
    }

    /** Stops watching {@code loop}, as it ends. */
    void stopped(Loop loop) {
        loops.remove(loop);
    }

    private void run() {
        try {
            while (watching()) {
                Thread.sleep(TICK_MILLIS);
                for (Loop loop : loops) {
                    try {
                        check(loop);
                    } catch (RuntimeException e) {
                        failed(e);
                    }
                }
            }
        } catch (InterruptedException e) {
            synchronized (this) {
                running = false;
            }
        }
    }

    private synchronized boolean watching() {
        running = !loops.isEmpty();
        return running;
    }

    /** Sends {@code loop} a heartbeat when it ran the last one, else looks at what its thread does. */
    private void check(Loop loop) throws InterruptedException {
        if (loop.answered()) {
            loop.beat(nanoTime.getAsLong());
            return;
        }
        try {
            Optional<BlockedCall> blocked = BlockedCall.read(tasks.resolve(String.valueOf(loop.tid)));
            if (blocked.isPresent() && blocked.equals(loop.suspect)) {
                end(loop, blocked.get());
            }
            loop.suspect = blocked;
        } catch (IOException e) {
            if (loops.contains(loop)) { // else the loop ended, and its thread with it
                failed(e);
            }
        }
    }

    /**
     * Ends {@code call}, which blocks {@code loop}, when its descriptor is a handed-over socket's;
     * else says so once for this stall.
     */
    private void end(Loop loop, BlockedCall call) throws InterruptedException {
        int copy;
        try {
            copy = Posix.duplicate(call.fd());
        } catch (Posix.Failure e) {
            return; // closed since (the loop moved on), or no descriptor free: the next tick sees
        }
        try {
            long blockedMillis = TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - loop.postedAt);
            Channel channel = adopted.get(Posix.inode(copy));
            if (channel == null) {
                if (!loop.reported) {
                    loop.reported = true;
                    log.warn(
                            "an event loop has run nothing for {} ms: its thread is blocked in {} on descriptor {},"
                                    + " which is no handed-over socket, so the relay leaves it",
                            blockedMillis,
                            call.call(),
                            call.fd());
                }
                return;
            }
            Transport.stop(
                    channel,
                    "the relay's event loop was blocked for " + blockedMillis + " ms in " + call.call()
                            + " on it (a holder of a copy made it blocking), so the relay shut it down");
            channel.config().setAutoRead(false);
            for (int i = 0; i < SHUTDOWNS && !loop.answered(); i++) {
                Posix.shutdownQuietly(copy, Posix.SHUT_RDWR);
                Thread.sleep(SHUTDOWN_PAUSE_MILLIS);
            }
        } catch (Posix.Failure e) {
            failed(e);
        } finally {
            Posix.closeQuietly(copy);
        }
    }

    /** The watchdog failed to look at a loop: said once; it goes on with the next. */
    private void failed(Exception e) {
        if (failedOnce.compareAndSet(false, true)) {
            log.warn("the event loop watchdog could not look at an event loop, and goes on: {}", e.toString());
        } else {
            log.debug("the event loop watchdog could not look at an event loop: {}", e.toString());
        }
    }

    /** One event loop: its thread, and its heartbeat (at most one in its queue). */
    static final class Loop implements Runnable {
        private final Executor executor;
        private final int tid;
        /** Heartbeats posted (the watchdog writes) and run (the loop writes). */
        private volatile long posted;

        private volatile long ran;
        // The watchdog's thread only:
        private long postedAt;
        private Optional<BlockedCall> suspect = Optional.empty();
        private boolean reported;

        Loop(Executor executor, int tid) {
            this.executor = executor;
            this.tid = tid;
        }

        /** The heartbeat, on the loop. */
        @Override
        public void run() {
            ran = posted;
        }

        boolean answered() {
            return ran == posted;
        }

        void beat(long now) {
            suspect = Optional.empty();
            reported = false;
            postedAt = now;
            posted = posted + 1;
            try {
                executor.execute(this);
            } catch (RejectedExecutionException e) {
                // The loop is shutting down.
            }
        }
    }
}
