package io.portcullis.relay.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dialer against real loopback listeners: what it dials, and when it gives up. */
class DialerTest {
    private final Transport transport = Transport.best();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.io());
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void aClientThatLeavesGivesTheDialUpAtOnceAndNoFurtherAddressIsDialed() throws Exception {
        InetSocketAddress silent = silentListener();
        Channel client = client();
        List<InetSocketAddress> tried = new CopyOnWriteArrayList<>();
        CompletableFuture<Dialer.Outcome> dialed =
                new Dialer(transport, 30_000).dial(client, List.of(silent, silent, silent), tried::add);

        Thread.sleep(300);
        assertFalse(dialed.isDone(), "a SYN to a full accept queue is dropped, so the dial waits");
        long closed = System.nanoTime();
        client.close().sync();
        Dialer.Outcome outcome = dialed.get(5, TimeUnit.SECONDS);

        assertTrue(System.nanoTime() - closed < 2_000_000_000L, "given up within 2 s of the client's close");
        assertEquals(
                DenyCode.CLIENT_CLOSED,
                assertInstanceOf(Dialer.Failed.class, outcome).code(),
                outcome.toString());
        assertEquals(List.of(silent), tried, "no further address after the client left");
    }

    @Test
    void aClientThatHasLeftAlreadyDialsNothing() throws Exception {
        Channel client = client();
        client.close().sync();
        List<InetSocketAddress> tried = new CopyOnWriteArrayList<>();
        Dialer.Outcome outcome = new Dialer(transport, 30_000)
                .dial(client, List.of(silentListener()), tried::add)
                .get(5, TimeUnit.SECONDS);

        assertEquals(
                DenyCode.CLIENT_CLOSED,
                assertInstanceOf(Dialer.Failed.class, outcome).code(),
                outcome.toString());
        assertEquals(List.of(), tried);
    }

    /**
     * A loopback listener that never accepts, its accept queue filled, so that the kernel drops
     * the next SYN (and its retries) and a connect to it waits for its timeout.
     */
    private InetSocketAddress silentListener() throws IOException {
        ServerSocket server = closing(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        for (int i = 0; i < 16; i++) {
            Socket queued = closing(new Socket());
            try {
                queued.connect(server.getLocalSocketAddress(), 200);
            } catch (SocketTimeoutException full) {
                return (InetSocketAddress) server.getLocalSocketAddress();
            }
        }
        throw new IllegalStateException("the accept queue of " + server + " never filled");
    }

    /** A connected channel on the test's event loop, standing for a spawn's client connection. */
    private Channel client() throws Exception {
        ServerSocket peer = closing(new ServerSocket(0, 8, InetAddress.getLoopbackAddress()));
        InetSocketAddress address = (InetSocketAddress) peer.getLocalSocketAddress();
        return new Bootstrap()
                .group(group)
                .channelFactory(transport.tcp().to(address))
                .handler(new ChannelHandlerAdapter() {})
                .connect(address)
                .sync()
                .channel();
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }
}
