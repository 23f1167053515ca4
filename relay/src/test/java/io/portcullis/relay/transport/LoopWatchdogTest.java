package io.portcullis.relay.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.portcullis.wire.Posix;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Decision D73: an event loop blocked in a system call on a handed-over socket has that socket shut
 * down and its channel stopped within a few ticks; a loop blocked on any other descriptor is left
 * alone, whatever it waits for.
 */
@Timeout(60)
class LoopWatchdogTest {
    /** Below the ephemeral range, in the relay tests' own network namespace. */
    private static final InetSocketAddress SOCKET = new InetSocketAddress(InetAddress.getLoopbackAddress(), 28880);

    private EpollKeepRegistered io;
    private EventLoopGroup loop;

    @BeforeEach
    void start() {
        io = new EpollKeepRegistered(System::nanoTime);
        loop = new MultiThreadIoEventLoopGroup(1, io);
    }

    @AfterEach
    void stop() throws InterruptedException {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    @Test
    void aLoopBlockedOnAHandedOverSocketHasItShutDownAndItsChannelStopped() throws Exception {
        int fd = Posix.listenTcp(SOCKET, 16);
        EpollServerSocketChannel channel = io.watch(new EpollServerSocketChannel(fd), 0);
        new ServerBootstrap()
                .group(loop)
                .channelFactory(() -> channel)
                .childHandler(new ChannelInboundHandlerAdapter())
                .register()
                .sync();

        CompletableFuture<Integer> accepted = blockIn(() -> Posix.accept(fd)); // fd is blocking: nothing comes
        long start = System.nanoTime();

        assertTrue(channel.closeFuture().await(10, TimeUnit.SECONDS), "closed");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 2000, "closed after " + millis + " ms");
        String why = Transport.stopped(channel).orElseThrow();
        assertTrue(why.startsWith("the relay's event loop was blocked for "), why);
        assertTrue(why.contains(" ms in accept4 on it"), why);
        assertTrue(accepted.handle((fd2, failure) -> failure).get(5, TimeUnit.SECONDS) instanceof Posix.Failure);
    }

    @Test
    void aLoopBlockedOnASocketNotHandedOverIsLeftAlone() throws Exception {
        int fd = Posix.listenTcp(SOCKET, 16);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CompletableFuture<Integer> accepted = blockIn(() -> Posix.accept(fd));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!captured.toString(StandardCharsets.UTF_8).contains("which is no handed-over socket")) {
                assertTrue(System.nanoTime() < deadline, "the watchdog saw the loop blocked: " + captured);
                Thread.sleep(10);
            }

            try (Socket client = new Socket(SOCKET.getAddress(), SOCKET.getPort())) {
                assertTrue(client.isConnected());
                int connection = accepted.get(5, TimeUnit.SECONDS);
                assertTrue(connection >= 0, "the socket still listens");
                Posix.closeQuietly(connection);
            }
        } finally {
            System.setErr(err);
            Posix.closeQuietly(fd);
        }
    }

    /** Runs {@code call} on the loop, where it blocks. */
    private CompletableFuture<Integer> blockIn(Call call) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                done.complete(call.run());
            } catch (Posix.Failure e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    @FunctionalInterface
    private interface Call {
        int run() throws Posix.Failure;
    }
}
