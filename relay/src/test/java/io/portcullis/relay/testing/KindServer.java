package io.portcullis.relay.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.transport.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One connection kind's pipeline served on a loopback TCP port, with a connection record attached
 * on accept as the relay does: the kind's handlers run on real NIO channels and dial real
 * upstreams, without the spawn socket and its hand-over in the way.
 */
public final class KindServer implements AutoCloseable {
    private final EventLoopGroup loops =
            new MultiThreadIoEventLoopGroup(1, Transport.nio().io());
    private final Channel server;

    /** @param handler a fresh kind handler for each connection */
    public KindServer(Supplier<ChannelHandler> handler, DecisionSink decisions) throws InterruptedException {
        AtomicLong ids = new AtomicLong();
        server = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        ConnectionRecord.attach(
                                channel,
                                "studio",
                                ids.incrementAndGet(),
                                InstantSource.system(),
                                decisions,
                                Traffic.own());
                        channel.pipeline().addLast(handler.get());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0)
                .sync()
                .channel();
    }

    /**
     * Sends {@code request} (ISO-8859-1) and returns everything answered until the relay's close,
     * or what came within {@code timeoutMillis}.
     */
    public String exchange(String request, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(((InetSocketAddress) server.localAddress()), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            try {
                in.transferTo(answer);
            } catch (SocketTimeoutException e) {
                // What came so far is the answer; the caller asserts on it.
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
