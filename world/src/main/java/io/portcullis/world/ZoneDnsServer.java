package io.portcullis.world;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuery;
import io.netty.handler.codec.dns.TcpDnsQueryDecoder;
import io.netty.handler.codec.dns.TcpDnsResponseEncoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real DNS server for a {@link Zone}, on one port over UDP and TCP; it records the source port of
 * each UDP query (SPEC R9: each should be fresh). Check it by hand with
 * {@code dig @127.0.0.1 -p PORT name A} (add {@code +tcp} for TCP).
 */
public final class ZoneDnsServer implements AutoCloseable {
    private static final int BIND_ATTEMPTS = 20;

    private final EventLoopGroup group;
    private final Channel udp;
    private final Channel tcp;
    private final List<Integer> sourcePorts;

    private ZoneDnsServer(EventLoopGroup group, Channel udp, Channel tcp, List<Integer> sourcePorts) {
        this.group = group;
        this.udp = udp;
        this.tcp = tcp;
        this.sourcePorts = sourcePorts;
    }

    /** Serves {@code zone} on {@code address} (port 0 picks a port free for both UDP and TCP). */
    public static ZoneDnsServer start(Zone zone, InetAddress address, int port) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ZoneResponder responder = new ZoneResponder(zone);
        List<Integer> sourcePorts = new CopyOnWriteArrayList<>();
        try {
            for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
                Channel udp = udp(group, responder, sourcePorts)
                        .bind(address, port)
                        .sync()
                        .channel();
                int bound = ((InetSocketAddress) udp.localAddress()).getPort();
                try {
                    Channel tcp =
                            tcp(group, responder).bind(address, bound).sync().channel();
                    return new ZoneDnsServer(group, udp, tcp, sourcePorts);
                } catch (Exception e) {
                    udp.close().sync();
                    if (port != 0) {
                        throw e;
                    }
                }
            }
            throw new IllegalStateException("no port free for both UDP and TCP on " + address.getHostAddress());
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static Bootstrap udp(EventLoopGroup group, ZoneResponder responder, List<Integer> sourcePorts) {
        return new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<NioDatagramChannel>() {
                    @Override
                    protected void initChannel(NioDatagramChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        new DatagramDnsQueryDecoder(),
                                        new DatagramDnsResponseEncoder(),
                                        new SimpleChannelInboundHandler<DatagramDnsQuery>() {
                                            @Override
                                            protected void channelRead0(
                                                    ChannelHandlerContext ctx, DatagramDnsQuery query) {
                                                var recipient = query.recipient();
                                                var sender = query.sender();
                                                sourcePorts.add(sender.getPort());
                                                int id = query.id();
                                                var opCode = query.opCode();
                                                responder.respond(
                                                        ctx,
                                                        query,
                                                        false,
                                                        code -> new DatagramDnsResponse(
                                                                recipient, sender, id, opCode, code));
                                            }
                                        });
                    }
                });
    }

    private static ServerBootstrap tcp(EventLoopGroup group, ZoneResponder responder) {
        return new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        new TcpDnsQueryDecoder(),
                                        new TcpDnsResponseEncoder(),
                                        new SimpleChannelInboundHandler<DnsQuery>() {
                                            @Override
                                            protected void channelRead0(ChannelHandlerContext ctx, DnsQuery query) {
                                                int id = query.id();
                                                var opCode = query.opCode();
                                                responder.respond(
                                                        ctx,
                                                        query,
                                                        true,
                                                        code -> new DefaultDnsResponse(id, opCode, code));
                                            }
                                        });
                    }
                });
    }

    /** The address and port it serves on (UDP and TCP). */
    public InetSocketAddress address() {
        return (InetSocketAddress) udp.localAddress();
    }

    /** The source port of every UDP query so far, in arrival order. */
    public List<Integer> udpSourcePorts() {
        return List.copyOf(sourcePorts);
    }

    /** Stops serving TCP: a connection to the port is refused from now on, UDP still answers. */
    public void stopTcp() {
        tcp.close().awaitUninterruptibly();
    }

    /** {@code ip:port}, the form of the host configuration's {@code dns.servers}. */
    public String hostConfigForm() {
        return LiteralAddresses.text(address());
    }

    @Override
    public void close() {
        udp.close().awaitUninterruptibly();
        tcp.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
