package io.portcullis.relay.ops;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.NetUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics listener ({@code --metrics-listen}, SPEC R43): {@link Routes} over HTTP/1.1 on a TCP
 * address, for a scraper of another uid. It has an event loop of its own (NIO: a scrape is
 * rare), so an answer never waits behind the relay's connections, and a loop of the relay that
 * hangs shows as a failing {@code /healthz} rather than a scrape that never ends. Any local uid
 * may connect, so what its clients hold is capped ({@link ListenerLimits#METRICS}: connections and
 * a deadline for each exchange), apart from the spawns' descriptors.
 */
public final class MetricsListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsListener.class);

    /** A scrape or probe has no body; this bounds what a client can make the listener hold. */
    private static final int MAX_REQUEST_BYTES = 8 * 1024;

    private final EventLoopGroup loop;
    private final Channel server;
    private final InetSocketAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();

    private MetricsListener(EventLoopGroup loop, Channel server, InetSocketAddress address) {
        this.loop = loop;
        this.server = server;
        this.address = address;
    }

    /**
     * Listens on {@code address} (port 0: one the kernel picks); warns when the address is not a
     * loopback one, since every host that reaches it can then read the metrics.
     */
    public static MetricsListener start(InetSocketAddress address, Routes routes) throws IOException {
        return start(address, routes, ListenerLimits.METRICS);
    }

    /** As {@link #start(InetSocketAddress, Routes)}, with a cap and deadline of its own (tests). */
    public static MetricsListener start(InetSocketAddress address, Routes routes, ListenerLimits limits)
            throws IOException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(routes, "routes");
        ConnectionGate gate = new ConnectionGate("metrics listener", limits);
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ChannelFuture bound = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        if (gate.admit(channel)) {
                            channel.pipeline()
                                    .addLast(
                                            new HttpServerCodec(),
                                            gate.exchange(),
                                            new HttpObjectAggregator(MAX_REQUEST_BYTES),
                                            new OpsHandler(routes));
                        }
                    }
                })
                .bind(address)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            throw new IOException(
                    "--metrics-listen: " + NetUtil.toSocketAddressString(address) + ": "
                            + bound.cause().getMessage(),
                    bound.cause());
        }
        int port = ((InetSocketAddress) bound.channel().localAddress()).getPort();
        MetricsListener listener =
                new MetricsListener(loop, bound.channel(), new InetSocketAddress(address.getAddress(), port));
        if (!address.getAddress().isLoopbackAddress()) {
            log.warn(
                    "--metrics-listen: {} is not a loopback address: every host that reaches it can read the metrics",
                    listener.text());
        }
        log.atInfo().addKeyValue("address", listener.text()).log("metrics listener open");
        return listener;
    }

    /** The address it listens on as it was asked for, with the port the kernel picked for port 0. */
    public InetSocketAddress address() {
        return address;
    }

    /** {@code ip:port}, with an IPv6 address in brackets. */
    public String text() {
        return NetUtil.toSocketAddressString(address());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
