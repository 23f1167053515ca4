package io.portcullis.relay.tunnel;

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
import io.portcullis.relay.observe.ConnectionRecord;
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
                            ConnectionRecord.attach(client, "test", 1, InstantSource.system(), decision -> {});
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
                        Splice.join(client, up, Unpooled.EMPTY_BUFFER, IDLE_MILLIS);
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
