package io.portcullis.relay.transport;

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

    private record Registration(IoRegistration epoll) implements IoRegistration {
        @Override
        public <T> T attachment() {
            return epoll.attachment();
        }

        @Override
        public long submit(IoOps ops) {
            return epoll.submit(EpollIoOps.NONE.equals(ops) ? EpollIoOps.EPOLLET : ops);
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
