package io.portcullis.relay.transport;

import io.netty.channel.Channel;
import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.portcullis.wire.Posix;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The epoll I/O handler, except that a channel asking for no events stays in the epoll set, and
 * that a channel's changes of interest reach the kernel at most once per turn of its event loop.
 *
 * <p>Netty 4.2.18 removes a file descriptor from epoll when its interest drops to none but keeps
 * it marked as added, so the next interest (EPOLLOUT for a write that must wait) fails with
 * ENOENT and the write is lost. A tunnel hits exactly that: a side whose input has ended, with
 * auto-read off and nothing pending, has no interest until the other side sends faster than it
 * drains. Asking for EPOLLET alone instead keeps the descriptor registered with no events.
 *
 * <p>Netty makes an epoll_ctl call for each change, and a new tunnel changes a side several times
 * in one turn: an accepted channel is added, then asks to read; a connected one drops EPOLLOUT,
 * submits the same interest again, then asks to read; an ended one drops EPOLLIN, then
 * EPOLLRDHUP; a closing one changes, then leaves. Only the last interest matters to the next
 * wait, so a change made on the loop's thread is kept until the loop is about to wait, and made
 * then only if it differs from what the kernel has; a channel that left meanwhile needs none.
 *
 * <p>A socket that the entry handed over ({@link #watch}) is closed once the kernel says it can
 * no longer serve: a listening socket that reports a hang-up or an error (another holder shut it
 * down, or {@code ss -K} destroyed it; a listening socket reports neither while it listens), a
 * datagram socket that reports a hang-up, a read hang-up (shut down for reading: it then reports
 * readable for ever with nothing to read) or an error (only a holder that asked for errors, or
 * connected it, gives an unconnected datagram socket one, and an error in its error queue stays
 * reported until a read of that queue, which Netty never makes). Netty handles none of these: the
 * hang-up alone is no event it reads, and the others make it read or accept again, so a
 * level-triggered descriptor that stays in that state would turn its event loop for ever. For a
 * state nobody foresaw, a handed-over socket that wakes its loop too often with nothing to give
 * is closed too ({@link EmptyWakeups}).
 *
 * <p>{@code O_NONBLOCK} belongs to the open file description that every copy of a handed-over
 * socket shares, so a holder of a copy can make the relay's socket blocking, and the relay's next
 * accept or receive that finds nothing would wait with its whole event loop. Before each event of
 * a handed-over socket reaches Netty the flag is read, and a socket found blocking is closed. That
 * check and the call after it are two moments, so every event loop of this handler is also
 * watched from another thread ({@link LoopWatchdog}): a loop blocked in a system call on a
 * handed-over socket has that socket shut down, and its channel closed, within two ticks.
 */
final class EpollKeepRegistered implements IoHandlerFactory {
    private static final Logger log = LoggerFactory.getLogger(EpollKeepRegistered.class);

    /** Linux's EPOLLHUP (the same value on every architecture; Netty names no constant for it). */
    static final int EPOLLHUP = 0x010;

    private static final int EPOLLERR = EpollIoOps.EPOLLERR.value();

    private static final int EPOLLRDHUP = EpollIoOps.EPOLLRDHUP.value();

    private static final int EPOLLOUT = EpollIoOps.EPOLLOUT.value();

    private final IoHandlerFactory epoll = EpollIoHandler.newFactory();
    private final LongSupplier nanoTime;
    private final LoopWatchdog watchdog;

    /** The handed-over sockets not registered yet, by their channel's I/O handle, with the events that end them. */
    private final Map<Object, Watched> watched = new ConcurrentHashMap<>();

    /** @param nanoTime the monotonic clock that {@link EmptyWakeups} counts a second on */
    EpollKeepRegistered(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.watchdog = new LoopWatchdog(Path.of("/proc/self/task"), nanoTime);
    }

    @Override
    public IoHandler newHandler(ThreadAwareExecutor executor) {
        return new Handler(epoll.newHandler(executor), executor, watched, watchdog);
    }

    /**
     * Closes {@code channel}, once registered, when its socket reports one of {@code ending}'s
     * events, is found blocking at an event, blocks its loop ({@link LoopWatchdog}), or wakes its
     * loop too often with nothing to give ({@link EmptyWakeups}), saying why ({@link
     * Transport#stop}). EPOLLRDHUP among {@code ending} is asked for with every interest.
     */
    <C extends Channel & UnixChannel> C watch(C channel, int ending) {
        try {
            watchdog.adopt(channel, channel.fd().intValue());
        } catch (Posix.Failure e) {
            throw new UncheckedIOException(e);
        }
        Object handle = channel.unsafe();
        EmptyWakeups empty = new EmptyWakeups(nanoTime);
        channel.pipeline().addFirst(empty);
        watched.put(handle, new Watched(channel, ending, empty));
        channel.closeFuture().addListener(closed -> watched.remove(handle));
        return channel;
    }

    /**
     * A handed-over socket's channel, the epoll events after which its socket serves no more, and
     * its count of wake-ups with nothing to give.
     */
    private record Watched(Channel channel, int ending, EmptyWakeups empty) {
        /** The ending events that epoll reports only when asked (it always reports a hang-up and an error). */
        EpollIoOps asked() {
            return EpollIoOps.valueOf(ending & EPOLLRDHUP);
        }
    }

    @Override
    public boolean isChangingThreadSupported() {
        return epoll.isChangingThreadSupported();
    }

    private static final class Handler implements IoHandler {
        private final IoHandler epoll;
        private final ThreadAwareExecutor executor;
        /** The registrations with a change not made yet; the loop's thread only. */
        private final List<Registration> changed = new ArrayList<>();

        private final Map<Object, Watched> watched;
        private final LoopWatchdog watchdog;
        /** Null until the loop's thread starts ({@link #initialize}); the loop's thread only. */
        private LoopWatchdog.@Nullable Loop loop;

        Handler(IoHandler epoll, ThreadAwareExecutor executor, Map<Object, Watched> watched, LoopWatchdog watchdog) {
            this.epoll = epoll;
            this.executor = executor;
            this.watched = watched;
            this.watchdog = watchdog;
        }

        /** On the loop's thread, as it starts. */
        @Override
        public void initialize() {
            epoll.initialize();
            loop = watchdog.started(executor);
        }

        @Override
        public int run(IoHandlerContext context) {
            // Each run is one wait (or poll) and the handling of what it found.
            for (int i = 0; i < changed.size(); i++) {
                changed.get(i).apply();
            }
            changed.clear();
            return epoll.run(context);
        }

        @Override
        public void prepareToDestroy() {
            epoll.prepareToDestroy();
        }

        @Override
        public void destroy() {
            if (loop != null) {
                watchdog.stopped(loop);
            }
            epoll.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            Watched watch = watched.remove(handle);
            IoHandle registered = watch == null ? handle : new Ending((EpollIoHandle) handle, watch);
            return new Registration(this, epoll.register(registered), registered);
        }

        @Override
        public void wakeup() {
            epoll.wakeup();
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return epoll.isCompatible(handleType);
        }
    }

    private static final class Registration implements IoRegistration {
        private final Handler handler;
        private final IoRegistration epoll;
        private final IoHandle handle;
        /** The interest last asked for, null before the first ask; the loop's thread only. */
        private @Nullable EpollIoOps wanted;
        /** The interest the kernel has, null before the first; the loop's thread only. */
        private @Nullable EpollIoOps made;

        private boolean queued;

        Registration(Handler handler, IoRegistration epoll, IoHandle handle) {
            this.handler = handler;
            this.epoll = epoll;
            this.handle = handle;
        }

        @Override
        public <T> T attachment() {
            return epoll.attachment();
        }

        @Override
        public long submit(IoOps ops) {
            EpollIoOps asked = EpollIoOps.NONE.equals(ops) ? EpollIoOps.EPOLLET : (EpollIoOps) ops;
            EpollIoOps kept = handle instanceof Ending ending ? asked.with(ending.watch.asked()) : asked;
            if (!handler.executor.isExecutorThread(Thread.currentThread())) {
                handler.executor.execute(() -> submit(kept));
                return kept.value();
            }
            if (!epoll.isValid()) {
                return -1;
            }
            wanted = kept;
            if (!queued) {
                queued = true;
                handler.changed.add(this);
            }
            return kept.value();
        }

        /** Makes the change asked for, before the loop waits. */
        void apply() {
            queued = false;
            EpollIoOps asked = wanted;
            if (asked == null || asked.equals(made) || !epoll.isValid()) {
                return;
            }
            try {
                epoll.submit(asked);
                made = asked;
            } catch (RuntimeException e) {
                // Made at once, the change would have failed the channel's read or write, which closes it.
                log.debug("epoll: could not change the interest of {}, closing it: {}", handle, e.toString());
                try {
                    handle.close();
                } catch (Exception suppressed) {
                    log.debug("epoll: could not close {}: {}", handle, suppressed.toString());
                }
            }
        }

        @Override
        public boolean isValid() {
            return epoll.isValid();
        }

        @Override
        public boolean cancel() {
            return epoll.cancel();
        }
    }

    /** A handed-over socket's I/O handle: its ending events close its channel instead of reaching Netty. */
    @SuppressWarnings("try") // close() is the handle's own, as Netty declares it
    private static final class Ending implements EpollIoHandle {
        private final EpollIoHandle handle;
        private final Watched watch;

        Ending(EpollIoHandle handle, Watched watch) {
            this.handle = handle;
            this.watch = watch;
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            int ops = ((EpollIoEvent) event).ops().value();
            if ((ops & watch.ending()) != 0) {
                Transport.stop(watch.channel(), stopped(ops & watch.ending()));
                return;
            }
            Optional<String> blocking = blocking(handle.fd().intValue());
            if (blocking.isPresent()) {
                Transport.stop(watch.channel(), blocking.get());
                return;
            }
            long given = watch.empty().given();
            handle.handle(registration, event);
            if ((ops & ~EPOLLOUT) != 0
                    && watch.empty().given() == given
                    && watch.channel().isOpen()
                    && watch.empty().tooMany()) {
                Transport.stop(
                        watch.channel(),
                        "the socket woke the relay more than " + EmptyWakeups.MAX_PER_SECOND
                                + " times in a second with nothing to accept or read");
            }
        }

        /** Why a read or an accept on {@code fd} could wait: it was made blocking, or its flags cannot be read. */
        private static Optional<String> blocking(int fd) {
            try {
                return Posix.isBlocking(fd)
                        ? Optional.of("the socket was made blocking (a holder of a copy cleared its O_NONBLOCK)")
                        : Optional.empty();
            } catch (Posix.Failure e) {
                return Optional.of("its flags could not be read: " + e.getMessage());
            }
        }

        /** Why the socket ended, from the ending events it reported. */
        private static String stopped(int ops) {
            List<String> events = new ArrayList<>();
            if ((ops & EPOLLHUP) != 0) {
                events.add("a hang-up");
            }
            if ((ops & EPOLLRDHUP) != 0) {
                events.add("a hang-up for reading");
            }
            if ((ops & EPOLLERR) != 0) {
                events.add("an error");
            }
            return "the socket reported " + String.join(" and ", events)
                    + " (shut down, destroyed or given an error from inside the namespace)";
        }

        @Override
        public FileDescriptor fd() {
            return handle.fd();
        }

        @Override
        public void registered() {
            handle.registered();
        }

        @Override
        public void unregistered() {
            handle.unregistered();
        }

        @Override
        public void close() throws Exception {
            handle.close();
        }
    }
}
