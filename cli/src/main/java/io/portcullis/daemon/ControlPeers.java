package io.portcullis.daemon;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who the control socket serves (SPEC R5): a peer with the daemon's own uid, whose process and
 * whose socket are both in the daemon's own network namespace or in one the operator listed. A
 * spawn that runs as the daemon's uid, and any namespace it makes inside itself, is refused, and
 * so is any peer that cannot be read. Checked before a byte is read; each kind of refusal is
 * logged once ({@link RefusalLog}).
 */
final class ControlPeers {
    private static final Logger log = LoggerFactory.getLogger(ControlPeers.class);
    /** How many kinds of refusal are logged one by one; past it, a count once a minute. */
    private static final int LOGGED_KINDS = 256;

    private final int uid;
    private final ControlNamespaces namespaces;
    private final ControlPeer.Reader reader;
    private final RefusalLog refusals;

    ControlPeers(int uid, ControlNamespaces namespaces, ControlPeer.Reader reader) {
        this(uid, namespaces, reader, line -> log.warn("control connection refused: {}", line));
    }

    /** @param logged where each refusal's first line goes */
    ControlPeers(int uid, ControlNamespaces namespaces, ControlPeer.Reader reader, Consumer<String> logged) {
        this.uid = uid;
        this.namespaces = Objects.requireNonNull(namespaces, "namespaces");
        this.reader = Objects.requireNonNull(reader, "reader");
        this.refusals = new RefusalLog(logged, LOGGED_KINDS, Duration.ofMinutes(1), System::nanoTime);
    }

    /** Why a peer is refused, and its kind for the log. */
    record Refusal(String kind, String why) {}

    /** The peer of an admitted connection, as it was read when it was admitted. */
    private static final AttributeKey<ControlPeer> PEER = AttributeKey.valueOf(ControlPeers.class, "peer");

    /** The peer that {@link #admit} read for {@code channel}; empty for a connection it did not admit. */
    static Optional<ControlPeer> peer(Channel channel) {
        return Optional.ofNullable(channel.attr(PEER).get());
    }

    /** Whether {@code channel}'s peer is served; a refused one is closed, before a byte is read. */
    boolean admit(Channel channel) {
        Optional<Refusal> refusal;
        try {
            ControlPeer peer = reader.read(channel);
            refusal = refusal(peer, uid, namespaces::contains);
            if (refusal.isEmpty()) {
                channel.attr(PEER).set(peer);
            }
        } catch (ControlPeer.Unreadable e) {
            refusal = Optional.of(
                    e.uid() != uid
                            ? uidRefusal(e.uid(), e.pid(), uid)
                            : unreadable(Objects.requireNonNullElse(e.getCause(), e)));
        } catch (IOException | RuntimeException e) {
            refusal = Optional.of(unreadable(e));
        }
        if (refusal.isEmpty()) {
            return true;
        }
        refusals.refused(refusal.get().kind(), refusal.get().why());
        channel.close();
        return false;
    }

    private static Refusal unreadable(Throwable e) {
        return new Refusal(
                "unreadable "
                        + (e instanceof Posix.Failure failure
                                ? failure.errno()
                                : e.getClass().getName()),
                "cannot read the peer's credentials or network namespace: " + e.getMessage());
    }

    /** A peer of another uid, whether or not its namespaces could be read. */
    private static Refusal uidRefusal(int peerUid, long pid, int uid) {
        return new Refusal("uid " + peerUid, "pid " + pid + " of uid " + peerUid + " (expected: uid " + uid + ")");
    }

    /** Why {@code peer} is refused by a daemon of {@code uid} serving the namespaces {@code allowed}; empty: served. Pure. */
    static Optional<Refusal> refusal(ControlPeer peer, int uid, Predicate<NetworkNamespace> allowed) {
        if (peer.uid() != uid) {
            return Optional.of(uidRefusal(peer.uid(), peer.pid(), uid));
        }
        if (!allowed.test(peer.process())) {
            return Optional.of(new Refusal(
                    peer.process().toString(),
                    "pid " + peer.pid() + " in network namespace " + peer.process()
                            + " (expected: the daemon's own, or one of --control-netns)"));
        }
        if (peer.socket().isPresent() && !allowed.test(peer.socket().get())) {
            return Optional.of(new Refusal(
                    peer.socket().get().toString(),
                    "pid " + peer.pid() + " with a socket made in network namespace "
                            + peer.socket().get() + " (expected: the daemon's own, or one of --control-netns)"));
        }
        return Optional.empty();
    }
}
