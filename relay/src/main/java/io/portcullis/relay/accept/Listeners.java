package io.portcullis.relay.accept;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.portcullis.relay.dns.NamespaceDns;
import io.portcullis.relay.policy.SpawnPolicy;
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
 * a server channel on the relay's event loops, whose every connection {@link SpawnInitializer}
 * sets up for the socket's kind; the spawn's DNS socket answers queries with {@link NamespaceDns}.
 * A socket that stops serving by itself (SPEC R4: shut down or destroyed from inside the
 * namespace, or its accept failing for good, {@link AcceptFailures}) is closed and reported once.
 */
public final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private final Transport transport;
    private final EventLoopGroup loops;
    private final SpawnInitializer.Shared shared;

    public Listeners(Transport transport, EventLoopGroup loops, SpawnInitializer.Shared shared) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.shared = Objects.requireNonNull(shared, "shared");
    }

    /**
     * Accepts on the checked sockets of {@code accepted}, each with its kind's pipeline, then asks
     * {@code listening} to take the server channels (false: the spawn closed meanwhile, and they
     * are closed). Runs off the event loops (it waits for the registrations); every descriptor
     * ends a channel's or closed. Once taken, a channel that closes by itself is told to {@code
     * stopped} with its socket and why, on its event loop.
     *
     * @return empty once accepting, else why not (for the answer to the entry)
     */
    public Optional<String> adopt(
            SpawnInitializer.Spawn spawn,
            Receiver.Accepted accepted,
            Predicate<List<Channel>> listening,
            BiConsumer<Handoff.Socket, String> stopped) {
        List<Channel> servers = new ArrayList<>();
        List<Receiver.Held> sockets = accepted.sockets();
        try {
            for (Receiver.Held held : sockets) {
                if (held.socket().kind() == Handoff.Kind.DNS) {
                    Channel dns = transport.listener().adoptDatagram(held.fd());
                    servers.add(dns);
                    new Bootstrap()
                            .group(loops)
                            .channelFactory(() -> dns)
                            .handler(NamespaceDns.initializer(dnsContext(spawn.policy())))
                            .register()
                            .sync();
                    continue;
                }
                ServerChannel server = transport.listener().adopt(held.fd());
                servers.add(server);
                new ServerBootstrap()
                        .group(loops)
                        .channelFactory(() -> server)
                        .handler(new AcceptFailures(spawn.policy().id(), held.socket()))
                        .childHandler(new SpawnInitializer(shared, spawn, held.socket()))
                        .register()
                        .sync();
            }
            if (listening.test(servers)) {
                for (int i = 0; i < servers.size(); i++) {
                    Channel server = servers.get(i);
                    Handoff.Socket socket = sockets.get(i).socket();
                    server.closeFuture()
                            .addListener(
                                    closed -> Transport.stopped(server).ifPresent(why -> stopped.accept(socket, why)));
                }
                return Optional.empty();
            }
            servers.forEach(Channel::close);
            return Optional.of("the spawn was closed during the hand-over");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(servers, sockets, e);
        } catch (RuntimeException e) {
            return failed(servers, sockets, e);
        }
    }

    /** What the spawn's DNS socket decides with: the configuration generation in use at each query. */
    private NamespaceDns.Context dnsContext(SpawnPolicy policy) {
        return new NamespaceDns.Context(
                policy,
                request -> shared.current().get().judge().decide(policy, request),
                () -> shared.current().get().number(),
                shared.ids()::incrementAndGet,
                shared.clock(),
                shared.decisions());
    }

    /** Closes the channels made so far and the descriptors that no channel took. */
    private static Optional<String> failed(List<Channel> servers, List<Receiver.Held> sockets, Exception e) {
        servers.forEach(Channel::close);
        sockets.stream().skip(servers.size()).forEach(held -> Posix.closeQuietly(held.fd()));
        log.warn("could not accept on the handed-over sockets", e);
        return Optional.of("the relay could not accept on the sockets: " + e);
    }
}
