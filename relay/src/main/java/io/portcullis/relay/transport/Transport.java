package io.portcullis.relay.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One I/O transport for both sides of a connection, so the outbound channel can live on the
 * inbound channel's event loop: epoll when the native library loads, NIO otherwise.
 *
 * @param name {@code epoll} or {@code nio}
 * @param io the event loops' I/O handler
 * @param domainServer the spawn socket's listening channel
 * @param tcp the outbound channel to a checked address, of that address's own family: an IPv4
 *     target gets an IPv4 socket, not a dual-stack one (no V6ONLY option to set, no peer lookup)
 * @param peers reads the peer's pid and uid of an accepted spawn-socket connection
 * @param listener adopts a socket that the entry handed over (a listening TCP socket, the UDP DNS
 *     socket), by its descriptor; such a channel is closed when its socket can no longer serve,
 *     with why ({@link #stopped})
 */
public record Transport(
        String name,
        IoHandlerFactory io,
        ChannelFactory<? extends ServerChannel> domainServer,
        TcpFactory tcp,
        PeerReader peers,
        ListenerAdopter listener) {

    private static final AttributeKey<String> STOPPED = AttributeKey.valueOf(Transport.class, "stopped");

    public Transport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(domainServer, "domainServer");
        Objects.requireNonNull(tcp, "tcp");
        Objects.requireNonNull(peers, "peers");
        Objects.requireNonNull(listener, "listener");
    }

    /** Epoll when available, else NIO. */
    public static Transport best() {
        return Epoll.isAvailable() ? epoll() : nio();
    }

    public static Transport epoll() {
        Epoll.ensureAvailability();
        EpollKeepRegistered io = new EpollKeepRegistered(System::nanoTime);
        return new Transport(
                "epoll",
                io,
                EpollServerDomainSocketChannel::new,
                EpollSocketChannel::new,
                Transport::epollPeer,
                new ListenerAdopter() {
                    @Override
                    public ServerChannel adopt(int fd) {
                        return io.watch(
                                new EpollServerSocketChannel(fd),
                                EpollKeepRegistered.EPOLLHUP | EpollIoOps.EPOLLERR.value());
                    }

                    /**
                     * Shut down either way, or holding an error (which only a holder that asked for
                     * errors, or connected it, can give it), a datagram socket serves no more.
                     */
                    @Override
                    public Channel adoptDatagram(int fd) {
                        return io.watch(
                                new EpollDatagramChannel(fd),
                                EpollKeepRegistered.EPOLLHUP
                                        | EpollIoOps.EPOLLRDHUP.value()
                                        | EpollIoOps.EPOLLERR.value());
                    }
                });
    }

    /**
     * NIO: the JDK gives no peer pid or uid of a unix socket connection and cannot adopt a socket
     * by its descriptor, so every hand-over is refused ({@code bad-handoff}): on NIO the relay
     * decides and dials, but serves no spawn.
     */
    public static Transport nio() {
        return new Transport(
                "nio",
                NioIoHandler.newFactory(),
                NioServerDomainSocketChannel::new,
                family -> new NioSocketChannel(SelectorProvider.provider(), family),
                channel -> Optional.empty(),
                fd -> {
                    throw new UnsupportedOperationException("nio: cannot adopt socket " + fd + " (expected: epoll)");
                });
    }

    /**
     * Closes an adopted socket's channel that can serve no more, saying {@code why} (the first why
     * given counts); the transport does so itself when the kernel says the socket stopped.
     */
    public static void stop(Channel channel, String why) {
        channel.attr(STOPPED).setIfAbsent(Objects.requireNonNull(why, "why"));
        channel.close();
    }

    /** Why an adopted socket's channel closed by itself ({@link #stop}); empty when the relay closed it. */
    public static Optional<String> stopped(Channel channel) {
        return Optional.ofNullable(channel.attr(STOPPED).get());
    }

    /** The address to bind the spawn socket to. */
    public SocketAddress domainAddress(Path socket) {
        return name.equals("epoll") ? new DomainSocketAddress(socket.toString()) : UnixDomainSocketAddress.of(socket);
    }

    private static Optional<Peer> epollPeer(Channel channel) throws IOException {
        var credentials = ((EpollDomainSocketChannel) channel).peerCredentials();
        return Optional.of(new Peer(credentials.pid(), credentials.uid()));
    }

    /** The process at the other end of a spawn-socket connection (SO_PEERCRED). */
    public record Peer(long pid, int uid) {}

    /** Reads the peer of an accepted connection; empty when the transport cannot tell. */
    @FunctionalInterface
    public interface PeerReader {
        Optional<Peer> read(Channel channel) throws IOException;
    }

    /** Opens an outbound TCP channel of one address family. */
    @FunctionalInterface
    public interface TcpFactory {
        Channel open(SocketProtocolFamily family);

        /** For a bootstrap that dials {@code address}. */
        default ChannelFactory<Channel> to(InetSocketAddress address) {
            SocketProtocolFamily family = address.getAddress() instanceof Inet6Address
                    ? SocketProtocolFamily.INET6
                    : SocketProtocolFamily.INET;
            return () -> open(family);
        }
    }

    /** A channel over a socket that the entry handed over, open already. */
    @FunctionalInterface
    public interface ListenerAdopter {
        /** A server channel over a listening TCP socket. */
        ServerChannel adopt(int fd);

        /** A datagram channel over a bound UDP socket (the namespace's DNS socket). */
        default Channel adoptDatagram(int fd) {
            throw new UnsupportedOperationException("cannot adopt UDP socket " + fd + " (expected: epoll)");
        }
    }
}
