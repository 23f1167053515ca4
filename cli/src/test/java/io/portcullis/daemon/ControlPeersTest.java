package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ControlPeersTest {
    private static final int DAEMON_UID = 1000;
    private static final long NSFS = 4;
    private static final NetworkNamespace OWN = new NetworkNamespace(NSFS, 4026531840L);
    private static final NetworkNamespace LISTED = new NetworkNamespace(NSFS, 4026532001L);
    private static final NetworkNamespace SPAWN = new NetworkNamespace(NSFS, 4026532100L);
    private static final NetworkNamespace NESTED = new NetworkNamespace(NSFS, 4026532101L);
    /** The same inode on another device is another file, not the daemon's namespace. */
    private static final NetworkNamespace ELSEWHERE = new NetworkNamespace(NSFS + 1, 4026531840L);

    private static NetworkNamespace namespace(String name) {
        return switch (name) {
            case "own" -> OWN;
            case "listed" -> LISTED;
            case "spawn" -> SPAWN;
            case "nested" -> NESTED;
            case "elsewhere" -> ELSEWHERE;
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** SPEC R5: the peer's uid, its process's namespace and its socket's namespace all must pass. */
    @ParameterizedTest(name = "uid {0}, process {1}, socket {2} -> {3}")
    @CsvSource(
            nullValues = "unreadable",
            value = {
                "1000, own,       own,        served",
                "1000, own,       unreadable, served",
                "1000, listed,    listed,     served",
                "1000, listed,    unreadable, served",
                "1000, own,       listed,     served",
                "0,    own,       own,        uid 0",
                "1001, own,       own,        uid 1001",
                "1000, spawn,     spawn,      net:[4026532100]",
                "1000, nested,    unreadable, net:[4026532101]",
                "1000, elsewhere, own,        net:[4026531840]",
                "1000, own,       nested,     net:[4026532101]",
                "1000, listed,    spawn,      net:[4026532100]",
            })
    void aPeerIsServedOnlyWithTheDaemonsUidInAnAllowedNamespace(
            int uid, String process, String socket, String expected) {
        ControlPeer peer = new ControlPeer(
                uid, 42, namespace(process), Optional.ofNullable(socket).map(ControlPeersTest::namespace));

        Optional<ControlPeers.Refusal> refusal = ControlPeers.refusal(peer, DAEMON_UID, Set.of(OWN, LISTED)::contains);

        assertEquals(expected, refusal.map(ControlPeers.Refusal::kind).orElse("served"));
    }

    @Test
    void aRefusalSaysWhoAndWhatWasExpected() {
        ControlPeer peer = new ControlPeer(DAEMON_UID, 4242, NESTED, Optional.empty());

        String why = ControlPeers.refusal(peer, DAEMON_UID, OWN::equals)
                .orElseThrow()
                .why();

        assertEquals(
                "pid 4242 in network namespace net:[4026532101] (expected: the daemon's own, or one of --control-netns)",
                why);
    }

    @Test
    void aPeerThatCannotBeReadIsRefusedAndClosed() throws IOException {
        EmbeddedChannel channel = new EmbeddedChannel();
        ControlPeers peers = new ControlPeers(DAEMON_UID, ControlNamespaces.own(), any -> {
            throw new IOException("getsockopt SO_PEERPIDFD: No such process");
        });

        assertFalse(peers.admit(channel));
        assertFalse(channel.isOpen());
    }

    /** A non-root daemon may not read a root process's namespace: that peer is refused for its uid. */
    @Test
    void anotherUidWhoseNamespaceCannotBeReadIsRefusedForItsUid() throws IOException {
        List<String> logged = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel();
        ControlPeers peers = new ControlPeers(
                DAEMON_UID,
                ControlNamespaces.own(),
                any -> {
                    throw new ControlPeer.Unreadable(
                            0, 77, new IOException("ioctl PIDFD_GET_NET_NAMESPACE: Permission denied"));
                },
                logged::add);

        assertFalse(peers.admit(channel));
        assertFalse(channel.isOpen());
        assertEquals(
                List.of("pid 77 of uid 0 (expected: uid 1000); later refusals of this peer are not logged"), logged);
    }

    /** Under NIO the JDK gives no peer credentials: every control connection is refused (fail closed). */
    @Test
    void theKernelsReaderRefusesAChannelItCannotAsk() throws IOException {
        EmbeddedChannel channel = new EmbeddedChannel();
        ControlPeers peers = new ControlPeers(DAEMON_UID, ControlNamespaces.own(), ControlPeer::read);

        assertFalse(peers.admit(channel));
        assertFalse(channel.isOpen());
    }

    @Test
    void aServedPeerStaysOpen() throws IOException {
        EmbeddedChannel channel = new EmbeddedChannel();
        NetworkNamespace own = NetworkNamespace.own();
        ControlPeers peers = new ControlPeers(
                DAEMON_UID, ControlNamespaces.own(), any -> new ControlPeer(DAEMON_UID, 42, own, Optional.of(own)));

        assertTrue(peers.admit(channel));
        assertTrue(channel.isOpen());
    }
}
