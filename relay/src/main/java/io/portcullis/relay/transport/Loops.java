package io.portcullis.relay.transport;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorChooserFactory.EventExecutorChooser;
import java.util.Arrays;
import java.util.concurrent.Executor;

/**
 * The relay's event loops, shared by every spawn. A new channel stays on the loop that asks for
 * one (a connection accepted on a listener stays on the listener's loop) unless that loop carries
 * more than {@link #SLACK} channels above the least loaded one; asked from any other thread, the
 * least loaded loop takes it.
 *
 * <p>Netty's own choice takes the loops in turn, so that with two loops half of a listener's
 * connections begin by moving to the other thread: a task, an eventfd write to wake it and a
 * context switch, on the path of every such connection before its first byte is read. One
 * connection at a time, that is most of what a new tunnel waits for beyond the kernel's work. The
 * slack keeps a burst spread over the loops as before (a loop takes new channels only while it is
 * at most two tunnels busier than the least loaded), and a tunnel's dialed side always joins its
 * client's loop.
 */
public final class Loops extends MultiThreadIoEventLoopGroup {
    /** How many more channels than the least loaded loop the asking loop may carry and still keep a new one. */
    static final int SLACK = 4;

    public Loops(int threads, IoHandlerFactory io) {
        super(threads, (Executor) null, LocalFirst::new, io);
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory io, Object... args) {
        return new Loop(this, executor, io);
    }

    /** A loop that tells how many channels it carries. */
    private static final class Loop extends SingleThreadIoEventLoop {
        Loop(IoEventLoopGroup group, Executor executor, IoHandlerFactory io) {
            super(group, executor, io);
        }

        int load() {
            return getNumOfRegisteredChannels();
        }
    }

    private static final class LocalFirst implements EventExecutorChooser {
        private final Loop[] loops;

        LocalFirst(EventExecutor[] executors) {
            this.loops = Arrays.copyOf(executors, executors.length, Loop[].class);
        }

        @Override
        public EventExecutor next() {
            Loop least = loops[0];
            int leastLoad = least.load();
            Loop local = null;
            int localLoad = 0;
            for (Loop loop : loops) {
                int load = loop.load();
                if (load < leastLoad) {
                    least = loop;
                    leastLoad = load;
                }
                if (loop.inEventLoop()) {
                    local = loop;
                    localLoad = load;
                }
            }
            return local != null && localLoad <= leastLoad + SLACK ? local : least;
        }
    }
}
