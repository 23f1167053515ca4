package io.portcullis.relay.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.wire.Posix;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC R4, issue 26 class 3 and its review: a handed-over socket left in a state where the kernel
 * reports it ready for ever with nothing to give (a DNS socket shut for reading, or holding an
 * error in its error queue; a listening socket shut down) turned its event loop at full speed.
 * The ending events of {@link Transport} close the states known; these tests watch with no ending
 * event at all, so that only the count of empty wake-ups stands between the loop and a spin, as it
 * does for a state nobody foresaw.
 */
@Timeout(60)
class EmptyWakeupsTest {
    /** Below the ephemeral range, in the relay tests' own network namespace. */
    private static final InetSocketAddress SOCKET = new InetSocketAddress(InetAddress.getLoopbackAddress(), 28480);

    private static final InetSocketAddress CLOSED = new InetSocketAddress(InetAddress.getLoopbackAddress(), 28481);

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
    void aDatagramSocketShutForReadingIsClosedAfterItsEmptyWakeups() throws Exception {
        int fd = handedOver(Posix.bindUdp(SOCKET));
        Channel channel = datagram(fd);

        Posix.shutdownQuietly(fd, Posix.SHUT_RD);

        assertClosedForItsEmptyWakeups(channel);
    }

    @Test
    void aDatagramSocketWithAQueuedErrorIsClosedAfterItsEmptyWakeups() throws Exception {
        int fd = handedOver(Posix.bindUdp(SOCKET));
        Channel channel = datagram(fd);

        Posix.setIntOption(fd, Posix.IPPROTO_IP, Posix.IP_RECVERR, 1);
        Posix.sendTo(fd, new byte[] {1}, CLOSED);

        assertClosedForItsEmptyWakeups(channel);
    }

    @Test
    void aListeningSocketShutDownIsClosedAfterItsEmptyWakeups() throws Exception {
        int fd = handedOver(Posix.listenTcp(SOCKET, 16));
        EpollServerSocketChannel channel = io.watch(new EpollServerSocketChannel(fd), 0);
        new ServerBootstrap()
                .group(loop)
                .channelFactory(() -> channel)
                .childHandler(new ChannelInboundHandlerAdapter())
                .register()
                .sync();

        Posix.shutdownQuietly(fd);

        assertClosedForItsEmptyWakeups(channel);
    }

    /** A socket that gives what wakes it is never closed, however busy. */
    @Test
    void aBusyDatagramSocketStaysOpen() throws Exception {
        AtomicLong read = new AtomicLong();
        Channel channel = datagram(handedOver(Posix.bindUdp(SOCKET)), read);
        int sent = 20 * EmptyWakeups.MAX_PER_SECOND;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (int i = 0; i < sent && System.nanoTime() < deadline; i++) {
                client.send(new DatagramPacket(new byte[] {(byte) i}, 1, SOCKET));
                while (i + 1 - read.get() > 32 && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // a few datagrams at a time: none is dropped, each wake-up gives some
                }
            }
        }
        while (read.get() < sent && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }

        assertEquals(sent, read.get());
        assertTrue(channel.isOpen());
        assertEquals(Optional.empty(), Transport.stopped(channel));
        channel.close().sync();
    }

    /** The count itself: more than the bound in one second is too many; a new second starts again. */
    @Test
    void theBoundIsPerSecond() {
        long[] now = {5_000_000_000L};
        EmptyWakeups empty = new EmptyWakeups(() -> now[0]);
        for (int i = 0; i < EmptyWakeups.MAX_PER_SECOND; i++) {
            assertFalse(empty.tooMany(), "wake-up " + (i + 1));
            now[0] += 999_000; // 1,000 of them take 0.999 s
        }
        now[0] += 1_000_000;
        assertFalse(empty.tooMany(), "a new second begins");
        for (int i = 1; i < EmptyWakeups.MAX_PER_SECOND; i++) {
            assertFalse(empty.tooMany(), "wake-up " + (i + 1) + " of the new second");
        }
        assertTrue(empty.tooMany(), "one more in the same second");
    }

    /** Non-blocking, as the relay makes every socket it receives. */
    private static int handedOver(int fd) throws Posix.Failure {
        Posix.nonBlocking(fd);
        return fd;
    }

    private Channel datagram(int fd) throws InterruptedException {
        return datagram(fd, new AtomicLong());
    }

    private Channel datagram(int fd, AtomicLong read) throws InterruptedException {
        Channel channel = io.watch(new EpollDatagramChannel(fd), 0);
        new Bootstrap()
                .group(loop)
                .channelFactory(() -> channel)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object message) {
                        read.incrementAndGet();
                        ReferenceCountUtil.release(message);
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        // the queued error's one read (ECONNREFUSED); what follows reads nothing
                    }
                })
                .register()
                .sync();
        return channel;
    }

    private static void assertClosedForItsEmptyWakeups(Channel channel) throws InterruptedException {
        assertTrue(channel.closeFuture().await(10, TimeUnit.SECONDS), "closed");
        String why = Transport.stopped(channel).orElseThrow();
        assertTrue(why.startsWith("the socket woke the relay more than 1000 times in a second"), why);
    }
}
