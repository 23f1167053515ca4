package io.portcullis.daemon;

import io.netty.channel.Channel;
import io.portcullis.entry.handoff.Posix;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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
        this.uid = uid;
        this.namespaces = Objects.requireNonNull(namespaces, "namespaces");
        this.reader = Objects.requireNonNull(reader, "reader");
        this.refusals = new RefusalLog(
                line -> log.warn("control connection refused: {}", line),
                LOGGED_KINDS,
                Duration.ofMinutes(1),
                System::nanoTime);
    }

    /** Why a peer is refused, and its kind for the log. */
    record Refusal(String kind, String why) {}

    /** Whether {@code channel}'s peer is served; a refused one is closed, before a byte is read. */
    boolean admit(Channel channel) {
        Optional<Refusal> refusal;
        try {
            refusal = refusal(reader.read(channel), uid, namespaces::contains);
        } catch (IOException | RuntimeException e) {
            refusal = Optional.of(new Refusal(
                    "unreadable "
                            + (e instanceof Posix.Failure failure
                                    ? failure.errno()
                                    : e.getClass().getName()),
                    "cannot read the peer's credentials or network namespace: " + e.getMessage()));
        }
        if (refusal.isEmpty()) {
            return true;
        }
        refusals.refused(refusal.get().kind(), refusal.get().why());
        channel.close();
        return false;
    }

    /** Why {@code peer} is refused by a daemon of {@code uid} serving the namespaces {@code allowed}; empty: served. Pure. */
    static Optional<Refusal> refusal(ControlPeer peer, int uid, Predicate<NetworkNamespace> allowed) {
        if (peer.uid() != uid) {
            return Optional.of(new Refusal(
                    "uid " + peer.uid(),
                    "pid " + peer.pid() + " of uid " + peer.uid() + " (expected: uid " + uid + ")"));
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
