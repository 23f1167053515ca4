package io.portcullis.relay.handoff;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.unix.UnixChannel;
import io.portcullis.relay.accept.SpawnParts;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
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
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open spawn's life: its spawn socket, until the entry hands the namespace's sockets over on
 * it, then those sockets, which the relay accepts on. A spawn restored from another relay (SPEC
 * R44) has no spawn socket: it serves its carried sockets from the start. {@link #close()} closes the spawn socket if
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
    private final Optional<SpawnSocket> socket;
    private final List<Channel> listeners = new ArrayList<>();
    private final List<Handoff.Socket> serving = new ArrayList<>();
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
        this.socket = Optional.of(SpawnSocket.open(parent, context, accepted -> adopt.apply(this, accepted)));
    }

    /** A restored spawn: no spawn socket; it serves once {@link #listening} took its carried sockets. */
    BoundSpawn(SpawnParts parts, SpawnPorts ports, Optional<DoorToken> token, Consumer<BoundSpawn> onClose) {
        this.parts = Objects.requireNonNull(parts, "parts");
        this.id = parts.policy().id();
        this.ports = Objects.requireNonNull(ports, "ports");
        this.token = Objects.requireNonNull(token, "token");
        this.onClose = Objects.requireNonNull(onClose, "onClose");
        this.socket = Optional.empty();
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

    /** The spawn socket; empty for a restored spawn, which was handed over to another relay. */
    public Optional<SpawnSocket> socket() {
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
        return socket.map(open -> open.handedOver().thenApply(accepted -> (Void) null))
                .orElseGet(() -> CompletableFuture.completedFuture(null));
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

    /**
     * Takes the handed-over sockets' channels, in the order of {@code sockets}; false (and the
     * caller closes them) once closed or stopped.
     */
    synchronized boolean listening(List<Channel> servers, List<Handoff.Socket> sockets, long inode) {
        if (closed || stopped) {
            return false;
        }
        listeners.addAll(servers);
        serving.addAll(sockets);
        namespace = inode;
        return true;
    }

    /**
     * What another relay needs to serve this spawn (SPEC R44): the namespace its sockets were made
     * in and each listening socket with the relay's own descriptor of it; empty unless it serves
     * (waiting, broken, stopped or closed). The descriptors stay this relay's, open while the spawn is.
     *
     * @throws IOException when the namespace's cookie cannot be read (Linux before 5.14)
     */
    public synchronized Optional<Receiver.Carried> carried() throws IOException {
        if (closed || stopped || broken.isPresent() || listeners.isEmpty()) {
            return Optional.empty();
        }
        List<Receiver.Held> held = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            if (!(listeners.get(i) instanceof UnixChannel unix)) {
                throw new IOException("spawn " + id() + ": its " + serving.get(i)
                        + " socket has no descriptor to carry (expected: the epoll transport)");
            }
            held.add(new Receiver.Held(serving.get(i), unix.fd().intValue()));
        }
        long cookie = Posix.namespaceCookie(held.getFirst().fd());
        return Optional.of(new Receiver.Carried(new Receiver.Origin(namespace, cookie), held));
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
        stop(Channel::close);
    }

    /**
     * Stops taking new connections while another relay takes them on the same sockets (SPEC R44):
     * the listening sockets leave this relay's event loops but stay open, so a connection that
     * comes meanwhile waits in the kernel's accept queue for the other relay, never refused. The
     * open connections go on until they end or {@link #letGo()}. Not from an event loop.
     */
    public void pause() {
        stop(Channel::deregister);
    }

    /** Once: closes the spawn socket and does {@code leave} to each listening socket, waiting for each. */
    private void stop(Function<Channel, ChannelFuture> leave) {
        List<Channel> servers;
        synchronized (this) {
            if (closed || stopped) {
                return;
            }
            stopped = true;
            servers = List.copyOf(listeners);
        }
        socket.ifPresent(SpawnSocket::close);
        servers.forEach(server -> leave.apply(server).syncUninterruptibly());
    }

    @Override
    public void close() {
        close(true);
    }

    /**
     * Closes the spawn in this relay while another serves it (SPEC R44): as {@link #close()}, but
     * the door token's file stays, since the other relay's spawn checks the same token. Closing this
     * relay's descriptors of the listening sockets leaves the sockets listening in the other.
     */
    public void letGo() {
        close(false);
    }

    private void close(boolean removeToken) {
        List<Channel> servers;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            servers = List.copyOf(listeners);
        }
        try {
            socket.ifPresent(SpawnSocket::close);
            servers.forEach(server -> server.close().syncUninterruptibly());
            parts.connections().close().awaitUninterruptibly();
        } finally {
            try {
                if (removeToken && token.isPresent()) {
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
