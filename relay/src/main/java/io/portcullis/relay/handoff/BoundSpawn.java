package io.portcullis.relay.handoff;

import io.netty.channel.Channel;
import io.portcullis.relay.accept.SpawnParts;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open spawn's life: its spawn socket, until the entry hands the namespace's sockets over on
 * it, then those sockets, which the relay accepts on. {@link #close()} closes the spawn socket if
 * it is still there, the handed-over sockets (new connections in the namespace are then refused)
 * and every connection, and removes the door token's file; it is safe to call more than once, from
 * any thread but an event loop's (it waits for the channels to close). The embedding API's {@code
 * SpawnHandle} is a view of it.
 *
 * <p>A spawn whose handed-over socket stops accepting by itself (SPEC R4: shut down or destroyed
 * from inside its namespace) is broken: every handed-over socket of it is closed, its open
 * connections go on, and it stays open until closed.
 */
public final class BoundSpawn implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BoundSpawn.class);

    private final String id;
    private final SpawnPorts ports;
    private final SpawnParts parts;
    private final Optional<DoorToken> token;
    private final Consumer<BoundSpawn> onClose;
    private final SpawnSocket socket;
    private final List<Channel> listeners = new ArrayList<>();
    private boolean closed;
    private boolean stopped;
    private Optional<String> broken = Optional.empty();
    private long namespace;

    /**
     * Opens the spawn socket last: a hand-over on it is given to {@code adopt} with this spawn,
     * which by then is whole.
     */
    BoundSpawn(
            SpawnParts parts,
            SpawnPorts ports,
            Optional<DoorToken> token,
            Path parent,
            SpawnSocket.Context context,
            BiFunction<BoundSpawn, Receiver.Accepted, Optional<String>> adopt,
            Consumer<BoundSpawn> onClose)
            throws IOException {
        this.parts = Objects.requireNonNull(parts, "parts");
        this.id = parts.policy().id();
        this.ports = Objects.requireNonNull(ports, "ports");
        this.token = Objects.requireNonNull(token, "token");
        this.onClose = Objects.requireNonNull(onClose, "onClose");
        this.socket = SpawnSocket.open(parent, context, accepted -> adopt.apply(this, accepted));
    }

    public String id() {
        return id;
    }

    /** The policy new connections are judged with. */
    public SpawnPolicy policy() {
        return parts.policy();
    }

    /** The revision of {@link #policy()}: 1 when the spawn opened, one more at each {@link #update}. */
    public long revision() {
        return parts.revision();
    }

    /** What the spawn's connections carried so far, counted as it moves. */
    public Traffic traffic() {
        return parts.traffic();
    }

    /**
     * Puts {@code next} in effect for the connections accepted from now on (SPEC R5): each open
     * connection keeps the policy it was accepted with, as across a reload. Refused whole, with
     * every problem, when {@code next} changes what cannot change ({@link SpawnChange}).
     *
     * @return the new revision
     * @throws ConfigException naming every field {@code next} may not change
     * @throws IllegalStateException once the spawn is closed
     */
    public synchronized long update(SpawnPolicy next) throws ConfigException {
        Objects.requireNonNull(next, "next");
        if (closed) {
            throw new IllegalStateException("spawn " + id + ": closed (expected: an open spawn)");
        }
        List<String> problems = SpawnChange.problems(parts.policy(), next);
        if (!problems.isEmpty()) {
            throw new ConfigException("spawn " + id, problems);
        }
        long revision = parts.revise(next);
        log.atInfo()
                .addKeyValue("spawn", id)
                .addKeyValue("revision", revision)
                .log("spawn {}: policy revision {} in effect for new connections", id, revision);
        return revision;
    }

    public SpawnPorts ports() {
        return ports;
    }

    public SpawnSocket socket() {
        return socket;
    }

    public Optional<DoorToken> token() {
        return token;
    }

    SpawnParts parts() {
        return parts;
    }

    /**
     * Completes once the entry's hand-over was accepted and the relay accepts on its sockets;
     * completes exceptionally when it was refused ({@link HandoffRefused}) or the spawn closed first.
     */
    public CompletableFuture<Void> handedOver() {
        return socket.handedOver().thenApply(accepted -> null);
    }

    /** The network namespace (its inode) whose sockets this spawn serves, once handed over. */
    public synchronized OptionalLong namespace() {
        return listeners.isEmpty() ? OptionalLong.empty() : OptionalLong.of(namespace);
    }

    /** The number of open connections on the spawn's sockets now. */
    public int openConnections() {
        return parts.connections().size();
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    /** Whether it stopped taking new connections (a relay draining). */
    public synchronized boolean isStopped() {
        return stopped;
    }

    /** Whether the relay accepts on its handed-over sockets. */
    public synchronized boolean isServing() {
        return !listeners.isEmpty();
    }

    /** Why the spawn is broken: which socket stopped accepting, and how; empty while it is not. */
    public synchronized Optional<String> broken() {
        return broken;
    }

    /** Takes the handed-over sockets' channels; false (and the caller closes them) once closed or stopped. */
    synchronized boolean listening(List<Channel> servers, long inode) {
        if (closed || stopped) {
            return false;
        }
        listeners.addAll(servers);
        namespace = inode;
        return true;
    }

    /**
     * Marks the spawn broken because {@code why}, the first time only, and closes every
     * handed-over socket; from any thread, an event loop's included (it waits for nothing).
     *
     * @return whether this call marked it: false when it was broken already, stopped or closed
     */
    boolean broke(String why) {
        List<Channel> servers;
        synchronized (this) {
            if (closed || stopped || broken.isPresent()) {
                return false;
            }
            broken = Optional.of(why);
            servers = List.copyOf(listeners);
        }
        servers.forEach(Channel::close);
        return true;
    }

    /**
     * Stops taking new connections (a relay draining): closes the spawn socket if it is still there
     * and the handed-over sockets, so a new connection in the namespace is refused at once; the
     * open connections go on until they end or {@link #close()}. Not from an event loop.
     */
    public void stopAccepting() {
        List<Channel> servers;
        synchronized (this) {
            if (closed || stopped) {
                return;
            }
            stopped = true;
            servers = List.copyOf(listeners);
        }
        socket.close();
        servers.forEach(server -> server.close().syncUninterruptibly());
    }

    @Override
    public void close() {
        List<Channel> servers;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            servers = List.copyOf(listeners);
        }
        try {
            socket.close();
            servers.forEach(server -> server.close().syncUninterruptibly());
            parts.connections().close().awaitUninterruptibly();
        } finally {
            try {
                if (token.isPresent()) {
                    token.get().remove();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("spawn " + id() + ": could not remove its door token", e);
            } finally {
                onClose.accept(this);
            }
        }
    }
}
