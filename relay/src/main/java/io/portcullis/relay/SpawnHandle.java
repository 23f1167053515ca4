package io.portcullis.relay;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.handoff.SpawnPorts;
import io.portcullis.relay.handoff.SpawnSocket;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One open spawn: its unix socket, until the entry hands the namespace's sockets over on it, then
 * those sockets, which the relay accepts on. {@link #close()} closes the spawn socket if it is
 * still there, the handed-over sockets (new connections in the namespace are then refused) and
 * every connection, and removes the door token's file; it is safe to call more than once, from
 * any thread but an event loop's (it waits for the channels to close).
 *
 * <p>A spawn whose handed-over socket stops accepting by itself (SPEC R4: shut down or destroyed
 * from inside its namespace) is {@linkplain State#BROKEN broken}: every handed-over socket of it
 * is closed, its open connections go on, and it stays open until closed.
 */
public final class SpawnHandle implements AutoCloseable {
    /** Where a spawn is in its life. */
    public enum State {
        /** Its socket waits for the entry's hand-over. */
        WAITING,
        /** The relay accepts on the handed-over sockets. */
        SERVING,
        /** A handed-over socket stopped accepting ({@code listener-broken}): the spawn takes no new connection. */
        BROKEN,
        /** The relay drains: the spawn takes no new connection. */
        STOPPED,
        /** Closed. */
        CLOSED
    }

    private final SpawnPolicy policy;
    private final SpawnPorts ports;
    private final SpawnSocket socket;
    private final ChannelGroup connections;
    private final Optional<DoorToken> token;
    private final Consumer<SpawnHandle> onClose;
    private final List<Channel> listeners = new ArrayList<>();
    private boolean closed;
    private boolean stopped;
    private Optional<String> broken = Optional.empty();
    private long namespace;

    SpawnHandle(
            SpawnPolicy policy,
            SpawnPorts ports,
            SpawnSocket socket,
            ChannelGroup connections,
            Optional<DoorToken> token,
            Consumer<SpawnHandle> onClose) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.ports = Objects.requireNonNull(ports, "ports");
        this.socket = Objects.requireNonNull(socket, "socket");
        this.connections = Objects.requireNonNull(connections, "connections");
        this.token = Objects.requireNonNull(token, "token");
        this.onClose = Objects.requireNonNull(onClose, "onClose");
    }

    /** The spawn's id, from its policy. */
    public String id() {
        return policy.id();
    }

    /** The spawn's policy. */
    public SpawnPolicy policy() {
        return policy;
    }

    /** The unix socket the spawn's entry hands its sockets over on (mode 0600); removed once used. */
    public Path socket() {
        return socket.path();
    }

    /**
     * The spawn's hand-over key (64 hex digits): the entry must present it ({@code
     * PORTCULLIS_HANDOFF_KEY}) or its hand-over is turned away. A secret for the wall and its entry
     * alone until the hand-over: never log it, never put it on a command line.
     */
    public String handoffKey() {
        return socket.key().text();
    }

    /** The directory that holds the socket (mode 0700, or 0711 for another peer uid); removed with it. */
    public Path directory() {
        return socket.directory();
    }

    /** The proxy port inside the namespace, moved up past the forwards and the door. */
    public int proxyPort() {
        return ports.proxy();
    }

    /** The forward ports inside the namespace, ascending. */
    public List<Integer> forwards() {
        return ports.sortedForwards();
    }

    /** The door port inside the namespace, when the spawn has a door. */
    public OptionalInt door() {
        return ports.door() == 0 ? OptionalInt.empty() : OptionalInt.of(ports.door());
    }

    /**
     * The named entries' sockets inside the namespace (SPEC R24): each listed tcp entry that is not
     * loopback, on its synthetic address, in policy order.
     */
    public List<SpawnPolicy.Named> named() {
        return policy.named();
    }

    /** The namespace's DNS socket, answered by the relay (SPEC R24): UDP 127.0.0.1:53. */
    public InetSocketAddress dns() {
        return SpawnPorts.DNS;
    }

    /** Where the door token was written (mode 0400), when the spawn has a door; removed on close. */
    public Optional<Path> tokenFile() {
        return token.map(DoorToken::file);
    }

    /**
     * Completes once the entry's hand-over was accepted and the relay accepts on its sockets;
     * completes exceptionally when it was refused (caused by a {@code HandoffRefused}, and the relay
     * then closes the spawn: it can never be handed over again) or the spawn closed first.
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
        return connections.size();
    }

    /** Where the spawn is in its life now. */
    public synchronized State state() {
        if (closed) {
            return State.CLOSED;
        }
        if (stopped) {
            return State.STOPPED;
        }
        if (broken.isPresent()) {
            return State.BROKEN;
        }
        return listeners.isEmpty() ? State.WAITING : State.SERVING;
    }

    /** Why the spawn is broken: which socket stopped accepting, and how; empty while it is not. */
    public synchronized Optional<String> broken() {
        return broken;
    }

    /** Whether {@link #close()} ran. */
    public synchronized boolean isClosed() {
        return closed;
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
    void stopAccepting() {
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
            connections.close().awaitUninterruptibly();
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
