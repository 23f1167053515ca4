package io.portcullis.relay.tunnel;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.util.concurrent.ThreadAwareExecutor;

/**
 * The epoll I/O handler, except that a channel asking for no events stays in the epoll set.
 *
 * <p>Netty 4.2.18 removes a file descriptor from epoll when its interest drops to none but keeps
 * it marked as added, so the next interest (EPOLLOUT for a write that must wait) fails with
 * ENOENT and the write is lost. A tunnel hits exactly that: a side whose input has ended, with
 * auto-read off and nothing pending, has no interest until the other side sends faster than it
 * drains. Asking for EPOLLET alone instead keeps the descriptor registered with no events.
 */
final class EpollKeepRegistered implements IoHandlerFactory {
    private final IoHandlerFactory epoll = EpollIoHandler.newFactory();

    @Override
    public IoHandler newHandler(ThreadAwareExecutor executor) {
        return new Handler(epoll.newHandler(executor));
    }

    @Override
    public boolean isChangingThreadSupported() {
        return epoll.isChangingThreadSupported();
    }

    private record Handler(IoHandler epoll) implements IoHandler {
        @Override
        public void initialize() {
            epoll.initialize();
        }

        @Override
        public int run(IoHandlerContext context) {
            return epoll.run(context);
        }

        @Override
        public void prepareToDestroy() {
            epoll.prepareToDestroy();
        }

        @Override
        public void destroy() {
            epoll.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return new Registration(epoll.register(handle));
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

    /**
     * Also skips a submit of the interest already in place: netty 4.2.18 submits a connected
     * channel's interest once more as it was (an epoll_ctl per outbound connection for nothing).
     * The kernel's interest is always the last one submitted, since none is ever dropped (see above).
     */
    private static final class Registration implements IoRegistration {
        private final IoRegistration epoll;
        private IoOps submitted;

        Registration(IoRegistration epoll) {
            this.epoll = epoll;
        }

        @Override
        public <T> T attachment() {
            return epoll.attachment();
        }

        @Override
        public synchronized long submit(IoOps ops) {
            EpollIoOps kept = EpollIoOps.NONE.equals(ops) ? EpollIoOps.EPOLLET : (EpollIoOps) ops;
            if (kept.equals(submitted)) {
                return kept.value();
            }
            if (!epoll.isValid()) {
                return -1;
            }
            // Not by the sign of the result: EPOLLET alone is a negative int.
            long result = epoll.submit(kept);
            submitted = kept;
            return result;
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
}
