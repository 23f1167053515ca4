package io.portcullis.relay;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.handoff.BoundSpawn;
import io.portcullis.relay.handoff.SpawnPorts;
import io.portcullis.relay.handoff.SpawnSocket;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

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

    private final BoundSpawn spawn;

    SpawnHandle(BoundSpawn spawn) {
        this.spawn = Objects.requireNonNull(spawn, "spawn");
    }

    /** The spawn's id, from its policy. */
    public String id() {
        return spawn.id();
    }

    /** The spawn's policy in effect for new connections. */
    public SpawnPolicy policy() {
        return spawn.policy();
    }

    /** The revision of {@link #policy()}: 1 when the spawn opened, one more at each {@link #update}. */
    public long revision() {
        return spawn.revision();
    }

    /**
     * Changes the spawn's policy in place (SPEC R5): {@code next} judges the connections accepted
     * from now on, while each open connection keeps the policy it was accepted with (as a {@link
     * Relay#reload} keeps a connection's host configuration). Neither the entry nor the program is
     * started again. What the spawn's sockets are was fixed when it opened, so {@code next} must
     * keep its id, proxy port, forwards (the loopback entries' ports), named entries (the {@code
     * tcp} entries off loopback), door port and token file, and peer uid; a policy that changes any
     * of them is refused whole, naming each, and the policy in effect stays.
     *
     * @return the new revision
     * @throws ConfigException with every field {@code next} may not change, one line each
     * @throws IllegalStateException once the spawn is closed
     */
    public long update(SpawnPolicy next) throws ConfigException {
        return spawn.update(next);
    }

    /**
     * What the spawn's connections carried so far, counted as it moves (an open tunnel's bytes
     * included): connections accepted and bytes each way since the spawn opened.
     */
    public Traffic traffic() {
        return spawn.traffic();
    }

    /**
     * The unix socket the spawn's entry hands its sockets over on (mode 0600); removed once used.
     *
     * @throws IllegalStateException for a {@linkplain #restored() restored} spawn, which has none
     */
    public Path socket() {
        return spawnSocket().path();
    }

    /** Whether the spawn was restored from sockets another relay carried ({@link Relay#restore}): it has no spawn socket. */
    public boolean restored() {
        return spawn.socket().isEmpty();
    }

    private SpawnSocket spawnSocket() {
        return spawn.socket()
                .orElseThrow(() -> new IllegalStateException(
                        "spawn " + id() + ": restored, it has no spawn socket (expected: a spawn this relay opened)"));
    }

    /**
     * The spawn's hand-over key (64 hex digits): the entry must present it ({@code
     * PORTCULLIS_HANDOFF_KEY}) or its hand-over is turned away. A secret for the wall and its entry
     * alone until the hand-over: never log it, never put it on a command line.
     */
    public String handoffKey() {
        return spawnSocket().key().text();
    }

    /**
     * The directory that holds the socket (mode 0700, or 0711 for another peer uid); removed with it.
     *
     * @throws IllegalStateException for a {@linkplain #restored() restored} spawn, which has none
     */
    public Path directory() {
        return spawnSocket().directory();
    }

    /** The proxy port inside the namespace, moved up past the forwards and the door. */
    public int proxyPort() {
        return spawn.ports().proxy();
    }

    /** The forward ports inside the namespace, ascending. */
    public List<Integer> forwards() {
        return spawn.ports().sortedForwards();
    }

    /** The door port inside the namespace, when the spawn has a door. */
    public OptionalInt door() {
        int door = spawn.ports().door();
        return door == 0 ? OptionalInt.empty() : OptionalInt.of(door);
    }

    /**
     * The named entries' sockets inside the namespace (SPEC R24): each listed tcp entry that is not
     * loopback, on its synthetic address, in policy order.
     */
    public List<SpawnPolicy.Named> named() {
        return spawn.policy().named();
    }

    /** The namespace's DNS socket, answered by the relay (SPEC R24): UDP 127.0.0.1:53. */
    public InetSocketAddress dns() {
        return SpawnPorts.DNS;
    }

    /** Where the door token was written (mode 0400), when the spawn has a door; removed on close. */
    public Optional<Path> tokenFile() {
        return spawn.token().map(DoorToken::file);
    }

    /**
     * Completes once the entry's hand-over was accepted and the relay accepts on its sockets;
     * complete from the start for a restored spawn; completes exceptionally when it was refused (caused by a {@code HandoffRefused}, and the relay
     * then closes the spawn: it can never be handed over again) or the spawn closed first.
     */
    public CompletableFuture<Void> handedOver() {
        return spawn.handedOver();
    }

    /** The network namespace (its inode) whose sockets this spawn serves, once handed over. */
    public OptionalLong namespace() {
        return spawn.namespace();
    }

    /**
     * What another relay needs to serve this spawn (SPEC R44), beside its {@link #policy()} (which
     * names its door token file): the network namespace its sockets were made in and each listening
     * socket, as the hand-over named it, with this relay's descriptor of it. Empty unless the spawn
     * serves. The descriptors stay this relay's and open while the spawn is: pass them on (SCM_RIGHTS
     * copies them), never close them. Give them to {@link Relay#restore} on the other side.
     *
     * @throws IOException when the namespace's cookie cannot be read (SO_NETNS_COOKIE, Linux 5.14)
     */
    public Optional<Receiver.Carried> carried() throws IOException {
        return spawn.carried();
    }

    /** The number of open connections on the spawn's sockets now. */
    public int openConnections() {
        return spawn.openConnections();
    }

    /** Where the spawn is in its life now. */
    public State state() {
        if (spawn.isClosed()) {
            return State.CLOSED;
        }
        if (spawn.isStopped()) {
            return State.STOPPED;
        }
        if (spawn.broken().isPresent()) {
            return State.BROKEN;
        }
        return spawn.isServing() ? State.SERVING : State.WAITING;
    }

    /** Why the spawn is broken: which socket stopped accepting, and how; empty while it is not. */
    public Optional<String> broken() {
        return spawn.broken();
    }

    /** Whether {@link #close()} ran. */
    public boolean isClosed() {
        return spawn.isClosed();
    }

    /** Whether this handle is the view of {@code bound}. */
    boolean views(BoundSpawn bound) {
        return spawn == bound;
    }

    /** Stops taking new connections (a relay draining); see {@link BoundSpawn#stopAccepting()}. */
    void stopAccepting() {
        spawn.stopAccepting();
    }

    /**
     * Stops taking new connections while another relay, which restored this spawn from {@link
     * #carried()}, takes them on the same sockets (SPEC R44): the listening sockets leave this
     * relay's event loops but stay open, so a connection that comes meanwhile waits in the
     * kernel's accept queue for the other relay and is never refused. The open connections go on;
     * {@link #letGo()} ends the spawn here. The state is {@link State#STOPPED}. Not from an event loop.
     */
    public void pause() {
        spawn.pause();
    }

    /**
     * Closes the spawn in this relay once another serves it (SPEC R44): as {@link #close()}, but the
     * door token's file stays, since the other relay checks the same token. The listening sockets
     * stay open in the relay that holds them too: closing this relay's descriptors closes nothing
     * there.
     */
    public void letGo() {
        spawn.letGo();
    }

    /**
     * Closes the spawn socket if it is still there, the handed-over sockets (new connections in the
     * namespace are then refused) and every connection, and removes the door token's file; safe
     * to call more than once, from any thread but an event loop's (it waits for the channels).
     */
    @Override
    public void close() {
        spawn.close();
    }
}
