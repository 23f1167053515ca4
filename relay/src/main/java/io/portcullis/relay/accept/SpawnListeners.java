package io.portcullis.relay.accept;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.portcullis.relay.dns.NamespaceDns;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the relay starts accepting: each checked socket of a spawn's hand-over (SPEC R4) becomes
 * a channel on the relay's event loops, a listening socket's with one {@link Acceptor}, the DNS
 * socket's answering queries with {@link NamespaceDns}. A socket that stops serving by itself
 * (SPEC R4: shut down or destroyed from inside the namespace, or its accept failing for good) is
 * closed and reported once.
 */
public final class SpawnListeners {
    private static final Logger log = LoggerFactory.getLogger(SpawnListeners.class);

    private final Transport transport;
    private final EventLoopGroup loops;
    private final RelayParts relay;

    public SpawnListeners(Transport transport, EventLoopGroup loops, RelayParts relay) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.relay = Objects.requireNonNull(relay, "relay");
    }

    /**
     * Accepts on the checked sockets of {@code accepted}, then asks {@code listening} to take the
     * channels (false: the spawn closed meanwhile, and they are closed). Runs off the event loops
     * (it waits for the registrations); every descriptor ends a channel's or closed. Once taken, a
     * channel that closes by itself is told to {@code stopped} with its socket and why, on its
     * event loop.
     *
     * @return empty once accepting, else why not (for the answer to the entry)
     */
    public Optional<String> adopt(
            SpawnParts spawn,
            Receiver.Accepted accepted,
            Predicate<List<Channel>> listening,
            BiConsumer<Handoff.Socket, String> stopped) {
        List<Channel> channels = new ArrayList<>();
        List<Receiver.Held> sockets = accepted.sockets();
        try {
            for (Receiver.Held held : sockets) {
                Channel channel = adopt(spawn, held);
                channels.add(channel);
                loops.next().register(channel).sync();
            }
            if (listening.test(channels)) {
                for (int i = 0; i < channels.size(); i++) {
                    Channel channel = channels.get(i);
                    Handoff.Socket socket = sockets.get(i).socket();
                    channel.closeFuture()
                            .addListener(
                                    closed -> Transport.stopped(channel).ifPresent(why -> stopped.accept(socket, why)));
                }
                return Optional.empty();
            }
            channels.forEach(Channel::close);
            return Optional.of("the spawn was closed during the hand-over");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(channels, sockets, e);
        } catch (RuntimeException e) {
            return failed(channels, sockets, e);
        }
    }

    /** A channel over one handed-over socket, with its one handler, not registered yet. */
    private Channel adopt(SpawnParts spawn, Receiver.Held held) {
        if (held.socket().kind() == Handoff.Kind.DNS) {
            Channel dns = transport.listener().adoptDatagram(held.fd());
            dns.pipeline().addLast(NamespaceDns.initializer(dnsContext(spawn)));
            return dns;
        }
        Channel server = transport.listener().adopt(held.fd());
        server.pipeline()
                .addLast("accept-failures", new AcceptFailures(spawn.policy().id(), held.socket()))
                .addLast("accept", new Acceptor(relay, spawn, loops, held.socket()));
        return server;
    }

    /**
     * What the spawn's DNS socket decides with: its judge for the configuration generation and the
     * policy's revision in use at each query.
     */
    private NamespaceDns.Context dnsContext(SpawnParts spawn) {
        return new NamespaceDns.Context(
                () -> spawn.judge(relay.current().get()),
                relay.ids()::incrementAndGet,
                relay.clock(),
                relay.decisions());
    }

    /** Closes the channels made so far and the descriptors that no channel took. */
    private static Optional<String> failed(List<Channel> channels, List<Receiver.Held> sockets, Exception e) {
        for (Channel channel : channels) {
            if (channel.isRegistered()) {
                channel.close();
            } else {
                channel.unsafe().closeForcibly();
            }
        }
        sockets.stream().skip(channels.size()).forEach(held -> Posix.closeQuietly(held.fd()));
        log.warn("could not accept on the handed-over sockets", e);
        return Optional.of("the relay could not accept on the sockets: " + e);
    }
}
