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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the relay starts accepting: each checked socket of a spawn's hand-over (SPEC R4) becomes
 * a channel on the relay's event loops, a listening socket's with one {@link Acceptor}, the DNS
 * socket's answering queries with {@link NamespaceDns}.
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

    /** What came of adopting a hand-over's sockets. */
    public sealed interface Adopted permits Accepting, Refused {}

    /** The relay accepts on every socket of the hand-over, each on its channel, in the hand-over's order. */
    public record Accepting(List<Adoption> sockets) implements Adopted {
        public Accepting {
            sockets = List.copyOf(sockets);
        }

        public List<Channel> channels() {
            return sockets.stream().map(Adoption::channel).toList();
        }
    }

    /** One handed-over socket and the channel over it. */
    public record Adoption(Handoff.Socket socket, Channel channel) {}

    /** The sockets could not be adopted, and are closed: why, for the answer to the entry. */
    public record Refused(String why) implements Adopted {}

    /**
     * Accepts on the checked sockets of {@code accepted}. Runs off the event loops (it waits for
     * the registrations); every descriptor ends a channel's or closed.
     */
    public Adopted adopt(SpawnParts spawn, Receiver.Accepted accepted) {
        List<Adoption> adopted = new ArrayList<>();
        List<Receiver.Held> sockets = accepted.sockets();
        try {
            for (Receiver.Held held : sockets) {
                Channel channel = adopt(spawn, held);
                adopted.add(new Adoption(held.socket(), channel));
                loops.next().register(channel).sync();
            }
            return new Accepting(adopted);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(adopted, sockets, e);
        } catch (RuntimeException e) {
            return failed(adopted, sockets, e);
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
    private static Refused failed(List<Adoption> adopted, List<Receiver.Held> sockets, Exception e) {
        for (Channel channel : adopted.stream().map(Adoption::channel).toList()) {
            if (channel.isRegistered()) {
                channel.close();
            } else {
                channel.unsafe().closeForcibly();
            }
        }
        sockets.stream().skip(adopted.size()).forEach(held -> Posix.closeQuietly(held.fd()));
        log.warn("could not accept on the handed-over sockets", e);
        return new Refused("the relay could not accept on the sockets: " + e);
    }
}
