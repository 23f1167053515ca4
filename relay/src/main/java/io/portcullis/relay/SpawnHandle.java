package io.portcullis.relay;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.wire.SpawnPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One open spawn: its unix socket in a directory of its own, and the ports its entry serves.
 * {@link #close()} stops accepting, closes the spawn's connections and removes the socket, the
 * directory and the door token's file; it is safe to call more than once, from any thread but an event loop's (it waits
 * for the channels to close).
 */
public final class SpawnHandle implements AutoCloseable {
    private final SpawnPolicy policy;
    private final SpawnPorts ports;
    private final Path directory;
    private final Path socket;
    private final Channel server;
    private final ChannelGroup connections;
    private final Optional<DoorToken> token;
    private final Consumer<SpawnHandle> onClose;
    private final AtomicBoolean closed = new AtomicBoolean();

    SpawnHandle(
            SpawnPolicy policy,
            SpawnPorts ports,
            Path directory,
            Path socket,
            Channel server,
            ChannelGroup connections,
            Optional<DoorToken> token,
            Consumer<SpawnHandle> onClose) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.ports = Objects.requireNonNull(ports, "ports");
        this.directory = Objects.requireNonNull(directory, "directory");
        this.socket = Objects.requireNonNull(socket, "socket");
        this.server = Objects.requireNonNull(server, "server");
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

    /** The unix socket the spawn's entry connects to (mode 0600). */
    public Path socket() {
        return socket;
    }

    /** The directory that holds the socket (mode 0700); removed on close. */
    public Path directory() {
        return directory;
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

    /** Where the door token was written (mode 0400), when the spawn has a door; removed on close. */
    public Optional<Path> tokenFile() {
        return token.map(DoorToken::file);
    }

    /** The number of connections on the spawn's socket now. */
    public int openConnections() {
        return connections.size();
    }

    /** Whether {@link #close()} ran. */
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.close().syncUninterruptibly();
            connections.close().awaitUninterruptibly();
        } finally {
            try {
                Files.deleteIfExists(socket);
                Files.deleteIfExists(directory);
                if (token.isPresent()) {
                    token.get().remove();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("spawn " + id() + ": could not remove " + directory, e);
            } finally {
                onClose.accept(this);
            }
        }
    }
}
