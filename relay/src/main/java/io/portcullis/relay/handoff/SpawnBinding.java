package io.portcullis.relay.handoff;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.portcullis.relay.accept.RelayParts;
import io.portcullis.relay.accept.SpawnListeners;
import io.portcullis.relay.accept.SpawnParts;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a spawn (SPEC R3, R4, R13): mints its door token, opens its spawn socket, and once the
 * entry's hand-over is accepted, accepts on the handed-over sockets ({@link SpawnListeners}). A
 * refused hand-over closes the spawn; a handed-over socket that stops accepting breaks it.
 */
public final class SpawnBinding {
    private static final Logger log = LoggerFactory.getLogger(SpawnBinding.class);

    private final Path parent;
    private final Transport transport;
    private final EventLoopGroup loops;
    private final RelayParts relay;
    private final SpawnListeners listeners;
    private final Metrics metrics;
    private final ExecutorService handoffs;
    private final SecureRandom random = new SecureRandom();

    /** @param handoffs where hand-overs are read and adopted, off the event loops */
    public SpawnBinding(
            Path parent,
            Transport transport,
            EventLoopGroup loops,
            RelayParts relay,
            Metrics metrics,
            ExecutorService handoffs) {
        this.parent = Objects.requireNonNull(parent, "parent");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.relay = Objects.requireNonNull(relay, "relay");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.handoffs = Objects.requireNonNull(handoffs, "handoffs");
        this.listeners = new SpawnListeners(transport, loops, relay);
    }

    /**
     * Opens {@code policy}'s spawn: a fresh directory (0700) under the parent, its socket listening
     * before this returns, and its door token written when it has a door.
     *
     * @param onClose told once the spawn closed, whatever closed it
     */
    public BoundSpawn bind(SpawnPolicy policy, Consumer<BoundSpawn> onClose) throws IOException {
        SpawnPorts ports = ports(policy);
        Optional<DoorToken> token = policy.door().isPresent()
                ? Optional.of(DoorToken.mint(policy.door().get().tokenFile(), policy.peerUid(), random))
                : Optional.empty();
        try {
            SpawnParts parts = new SpawnParts(
                    policy,
                    new DefaultChannelGroup("spawn-" + policy.id(), loops.next()),
                    token,
                    metrics.spawnTraffic());
            SpawnSocket.Context context = new SpawnSocket.Context(
                    policy.id(),
                    policy.peerUid(),
                    ports.wanted(),
                    Math.toIntExact(relay.current().get().headerTimeoutMillis()),
                    () -> relay.current().get().host().handoff().allowSharedPidNamespace(),
                    transport,
                    loops,
                    handoffs,
                    relay.decisions(),
                    relay.clock(),
                    relay.ids()::incrementAndGet);
            BoundSpawn spawn = new BoundSpawn(parts, ports, token, parent, context, this::adopt, onClose);
            spawn.handedOver().whenComplete((accepted, failure) -> {
                if (failure instanceof HandoffRefused
                        || (failure != null && failure.getCause() instanceof HandoffRefused)) {
                    closeRefused(spawn);
                }
            });
            return spawn;
        } catch (IOException | RuntimeException e) {
            if (token.isPresent()) {
                token.get().remove();
            }
            throw e;
        }
    }

    /**
     * Serves {@code policy}'s spawn again on the sockets another relay carried here (SPEC R44),
     * with no spawn socket: they are checked as a hand-over's are ({@link Receiver#restore}), the
     * door token is the one already in the policy's token file ({@link DoorToken#adopt}), and the
     * relay accepts on them before this returns. Refused, every descriptor is closed, the token
     * file stays as it was, and the refusal is logged and written as a decision line of kind
     * {@code handoff} with {@code bad-handoff}. Off the event loops (it waits for the registrations).
     *
     * @param onClose told once the spawn closed, whatever closed it
     * @throws HandoffRefused when the sockets or the token are not the spawn's
     */
    public BoundSpawn restore(SpawnPolicy policy, Receiver.Carried carried, Consumer<BoundSpawn> onClose)
            throws HandoffRefused {
        SpawnPorts ports;
        Optional<DoorToken> token;
        try {
            ports = ports(policy);
            token = policy.door().isPresent()
                    ? Optional.of(DoorToken.adopt(policy.door().get().tokenFile(), policy.peerUid()))
                    : Optional.empty();
        } catch (IOException | RuntimeException e) {
            carried.sockets().forEach(held -> Posix.closeQuietly(held.fd()));
            throw refused(policy.id(), Objects.requireNonNullElse(e.getMessage(), e.toString()));
        }
        Receiver.Accepted accepted;
        switch (Receiver.restore(carried, ports.wanted())) {
            case Receiver.Accepted checked -> accepted = checked;
            case Receiver.Refused refusal -> throw refused(policy.id(), refusal.reason());
            case Receiver.Unkeyed refusal -> throw refused(policy.id(), refusal.reason());
        }
        SpawnParts parts = new SpawnParts(
                policy, new DefaultChannelGroup("spawn-" + policy.id(), loops.next()), token, metrics.spawnTraffic());
        BoundSpawn spawn = new BoundSpawn(parts, ports, token, onClose);
        Optional<String> problem = adopt(spawn, accepted);
        if (problem.isPresent()) {
            spawn.letGo();
            throw refused(policy.id(), problem.get());
        }
        return spawn;
    }

    /** Logs a refused restore, writes its decision line and returns the exception that says why. */
    private HandoffRefused refused(String id, String reason) {
        log.atWarn().addKeyValue("spawn", id).log("spawn {}: refused to restore it: {}", id, reason);
        ConnectionRecord record =
                ConnectionRecord.detached(id, relay.ids().incrementAndGet(), relay.clock(), relay.decisions());
        record.kind("handoff");
        record.deny(DenyCode.BAD_HANDOFF);
        record.finish();
        return new HandoffRefused(reason);
    }

    private static SpawnPorts ports(SpawnPolicy policy) {
        return new SpawnPorts(
                policy.effectiveProxyPort(),
                forwardPorts(policy),
                policy.door().map(SpawnPolicy.Door::port).orElse(0),
                policy.named().stream().map(SpawnPolicy.Named::address).toList());
    }

    private static Set<Integer> forwardPorts(SpawnPolicy policy) {
        Set<Integer> ports = new TreeSet<>();
        policy.forwards().forEach(entry -> ports.add(entry.target().port()));
        return ports;
    }

    /** Accepts on the checked sockets of a hand-over; off the event loops (it waits for the registrations). */
    private Optional<String> adopt(BoundSpawn spawn, Receiver.Accepted accepted) {
        return switch (listeners.adopt(spawn.parts(), accepted)) {
            case SpawnListeners.Refused refused -> Optional.of(refused.why());
            case SpawnListeners.Accepting accepting
            when !spawn.listening(
                    accepting.channels(),
                    accepting.sockets().stream()
                            .map(SpawnListeners.Adoption::socket)
                            .toList(),
                    accepted.namespace()) -> {
                accepting.channels().forEach(Channel::close);
                yield Optional.of("the spawn was closed during the hand-over");
            }
            case SpawnListeners.Accepting accepting -> {
                // A socket that stops serving by itself (SPEC R4: shut down or destroyed from inside
                // the namespace, or its accept failing for good) breaks the spawn, once.
                for (SpawnListeners.Adoption adoption : accepting.sockets()) {
                    Channel channel = adoption.channel();
                    channel.closeFuture()
                            .addListener(closed ->
                                    Transport.stopped(channel).ifPresent(why -> broken(spawn, adoption.socket(), why)));
                }
                yield Optional.empty();
            }
        };
    }

    /**
     * A refused hand-over used up the spawn socket, so the spawn can never serve: it is closed (its
     * id free again, its door token removed), off the event loop that refused it.
     */
    private void closeRefused(BoundSpawn spawn) {
        try {
            handoffs.execute(spawn::close);
        } catch (RejectedExecutionException closing) {
            // The relay is closing, and closes every spawn itself.
        }
    }

    /**
     * A handed-over socket of {@code spawn} stopped accepting (SPEC R4): the spawn is marked broken
     * and its sockets closed, with one warning, one decision line ({@code listener-broken}) and
     * one count, however many of its sockets stop together.
     */
    private void broken(BoundSpawn spawn, Handoff.Socket socket, String why) {
        if (!spawn.broke(socket + ": " + why)) {
            return;
        }
        metrics.listenerBroken();
        log.atWarn()
                .addKeyValue("spawn", spawn.id())
                .addKeyValue("socket", socket.toString())
                .log(
                        "spawn {}: its {} socket stopped accepting: {}; the spawn is broken: its sockets are closed and"
                                + " it takes no new connection until it is closed",
                        spawn.id(),
                        socket,
                        why);
        ConnectionRecord record =
                ConnectionRecord.detached(spawn.id(), relay.ids().incrementAndGet(), relay.clock(), relay.decisions());
        record.kind("listener");
        record.target(socket.kind().label() + ":" + Handoff.text(socket.address()));
        record.fail(DenyCode.LISTENER_BROKEN, socket + ": " + why);
        record.finish();
    }
}
