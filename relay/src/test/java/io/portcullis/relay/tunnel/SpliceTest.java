package io.portcullis.relay.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.testing.Line;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A splice between real loopback sockets on epoll, the relay's transport: a client, and an upstream that never reads. */
class SpliceTest {
    private static final long IDLE_MILLIS = 2000;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void anUpstreamThatStopsReadingIsClosedAfterTheIdleTimeWhenTheClientIsGone() throws Exception {
        // Regression: the client reset its connection while bytes for the upstream were queued; the
        // upstream's close waited for a flush that never finished, and no idle handler watched it.
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Channel> upstream = new CompletableFuture<>();
            Channel front = new ServerBootstrap()
                    .group(group)
                    .channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel client) {
                            ConnectionRecord.attach(
                                    client, "test", 1, InstantSource.system(), decision -> {}, Traffic.own());
                            client.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                    dial(client, origin.getLocalPort(), upstream);
                                }
                            });
                        }
                    })
                    .bind(new InetSocketAddress(loopback, 0))
                    .sync()
                    .channel();
            Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort());
            Socket neverReads = null;
            try {
                neverReads = accept(origin); // held open, never read
                Channel up = upstream.get(5, TimeUnit.SECONDS);
                Thread writer = Thread.ofPlatform().start(() -> fill(client));
                writer.join(500);
                assertTrue(writer.isAlive(), "the writer should be blocked: every buffer on the way is full");
                client.setSoLinger(true, 0);
                client.close();

                assertTrue(
                        up.closeFuture().await(IDLE_MILLIS + 4000),
                        "the upstream is still open " + (IDLE_MILLIS + 4000) + " ms after its client was reset");
                writer.join(5000);
            } finally {
                client.close();
                if (neverReads != null) {
                    neverReads.close();
                }
                front.close().sync();
            }
        }
    }

    @Test
    void aTunnelWhoseUpstreamStopsReadingIsClosedAfterTheIdleTime() throws Exception {
        // Regression: a write queued for a peer that reads nothing counted as bytes moving, so a
        // tunnel whose reader stopped for good stayed open past the idle time, for ever.
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Channel> upstream = new CompletableFuture<>();
            Channel front = front(origin.getLocalPort(), decision -> {}, upstream);
            Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort());
            Socket neverReads = accept(origin); // held open, never read
            try {
                Channel up = upstream.get(5, TimeUnit.SECONDS);
                Thread writer = Thread.ofPlatform().start(() -> fill(client));

                assertTrue(
                        up.closeFuture().await(IDLE_MILLIS + 3000),
                        "the tunnel is still open " + (IDLE_MILLIS + 3000) + " ms after its upstream stopped reading");
                writer.join(5000);
                assertTrue(!writer.isAlive(), "the client's writes still block");
            } finally {
                neverReads.close();
                client.close();
                front.close().sync();
            }
        }
    }

    @Test
    void aSlowReaderKeepsItsTunnelOpenPastTheIdleTime() throws Exception {
        // The other side of the fix above: a reader that takes a little (one loopback segment) in
        // every quarter of the idle time keeps the tunnel, though the kernel's buffers and a whole
        // 128 KiB write to it take longer than the idle time to drain.
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Channel> upstream = new CompletableFuture<>();
            Channel front = front(origin.getLocalPort(), decision -> {}, upstream);
            Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort());
            try (Socket slow = accept(origin)) {
                Channel up = upstream.get(5, TimeUnit.SECONDS);
                Thread writer = Thread.ofPlatform().start(() -> fill(client));
                int sip = 64 * 1024;
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * IDLE_MILLIS + 1000);
                while (System.nanoTime() < until) {
                    assertEquals(
                            sip, slow.getInputStream().readNBytes(sip).length, "the tunnel ended under a slow reader");
                    Thread.sleep(IDLE_MILLIS / 4);
                }

                assertTrue(up.isOpen(), "a slow reader's tunnel was closed as idle");
                client.setSoLinger(true, 0);
                client.close();
                writer.join(5000);
            } finally {
                client.close();
                front.close().sync();
            }
        }
    }

    @Test
    void anUpstreamResetReachesTheClientAsAResetAndIsOnTheDecisionLine() throws Exception {
        // Regression: an origin that reset after sending data gave the client an orderly end of
        // stream, so a cut-off download looked whole; the decision line said nothing.
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Decision> line = new CompletableFuture<>();
            Channel front = front(origin.getLocalPort(), line::complete);
            try (Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort())) {
                client.setSoTimeout(5000);
                try (Socket served = accept(origin)) {
                    served.getOutputStream().write(new byte[64 * 1024]);
                    // The tunnel is up once bytes arrive; a reset before that fails the dial instead.
                    assertEquals(1024, client.getInputStream().readNBytes(1024).length);
                    served.setSoLinger(true, 0);
                }

                IOException end = assertThrows(IOException.class, () -> readToEnd(client), "an orderly end");
                assertTrue(String.valueOf(end.getMessage()).contains("Connection reset"), end.toString());
                assertEquals(
                        "upstream-reset", Line.of(line.get(5, TimeUnit.SECONDS)).end());
            } finally {
                front.close().sync();
            }
        }
    }

    @Test
    void aClientResetReachesTheUpstreamAsAResetAndIsOnTheDecisionLine() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Decision> line = new CompletableFuture<>();
            Channel front = front(origin.getLocalPort(), line::complete);
            Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort());
            try (Socket served = accept(origin)) {
                served.setSoTimeout(5000);
                client.getOutputStream().write(new byte[1024]);
                served.getInputStream().readNBytes(1024);
                client.setSoLinger(true, 0);
                client.close();

                IOException end = assertThrows(IOException.class, () -> readToEnd(served), "an orderly end");
                assertTrue(String.valueOf(end.getMessage()).contains("Connection reset"), end.toString());
                assertEquals(
                        "client-reset", Line.of(line.get(5, TimeUnit.SECONDS)).end());
            } finally {
                front.close().sync();
            }
        }
    }

    @Test
    void anOrderlyEndStaysOrderlyAndTheLineSaysNothing() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket origin = new ServerSocket(0, 1, loopback)) {
            CompletableFuture<Decision> line = new CompletableFuture<>();
            Channel front = front(origin.getLocalPort(), line::complete);
            Socket client = new Socket(loopback, ((InetSocketAddress) front.localAddress()).getPort());
            try {
                client.setSoTimeout(5000);
                try (Socket served = accept(origin)) {
                    served.getOutputStream().write(new byte[64 * 1024]);
                }

                assertEquals(64 * 1024, readToEnd(client));
                client.close();
                assertNull(Line.of(line.get(5, TimeUnit.SECONDS)).end());
            } finally {
                client.close();
                front.close().sync();
            }
        }
    }

    /** A splicing front door to the origin on {@code port}; each connection's decision goes to {@code sink}. */
    private Channel front(int port, DecisionSink sink) throws InterruptedException {
        return front(port, sink, new CompletableFuture<>());
    }

    /** As above, and {@code upstream} gets each connection's upstream channel once it is dialed. */
    private Channel front(int port, DecisionSink sink, CompletableFuture<Channel> upstream)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel client) {
                        ConnectionRecord.attach(client, "test", 1, InstantSource.system(), sink, Traffic.own());
                        client.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                dial(client, port, upstream);
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sync()
                .channel();
    }

    /** Reads until the end of stream; the byte count. */
    private static long readToEnd(Socket socket) throws IOException {
        return socket.getInputStream().transferTo(OutputStream.nullOutputStream());
    }

    private void dial(Channel client, int port, CompletableFuture<Channel> upstream) {
        new Bootstrap()
                .group(client.eventLoop())
                .channel(EpollSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .addListener((ChannelFutureListener) connected -> {
                    Channel up = connected.channel();
                    if (connected.isSuccess()) {
                        up.pipeline().removeFirst();
                        ConnectionRecord.of(client).connected();
                        Splice.join(
                                client,
                                client.pipeline().last(),
                                up,
                                Unpooled.EMPTY_BUFFER,
                                Unpooled.EMPTY_BUFFER,
                                IDLE_MILLIS);
                        upstream.complete(up);
                    } else {
                        upstream.completeExceptionally(connected.cause());
                    }
                });
    }

    private static Socket accept(ServerSocket origin) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    try {
                        return origin.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                .get(5, TimeUnit.SECONDS);
    }

    /** Writes until the socket is closed under it; 256 MiB at most. */
    private static void fill(Socket client) {
        byte[] chunk = new byte[64 * 1024];
        try {
            OutputStream out = client.getOutputStream();
            for (int i = 0; i < 4096; i++) {
                out.write(chunk);
            }
        } catch (IOException closed) {
            // the test closed the socket: the point of the writer
        }
    }
}
