package io.portcullis.relay.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.PeerProcess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Who may hand over from the relay's own pid namespace (decision D69). */
class SharedPidsTest {
    private static final PeerProcess.Namespace RELAYS = new PeerProcess.Namespace(PeerProcess.Type.PID, 4, 4026531836L);
    private static final PeerProcess.Namespace ITS_OWN =
            new PeerProcess.Namespace(PeerProcess.Type.PID, 4, 4026532001L);

    @ParameterizedTest(name = "uid {0}, relay {1}, root of its user namespace {2}, pids {3}, allowed {4} -> {5}")
    @CsvSource({
        "1000, 1000, false, relay's, false, refused",
        "1000, 1000, false, its own, false, handed over",
        "1000, 1000, false, relay's, true, handed over",
        "2000, 1000, false, relay's, false, handed over",
        "0, 1000, true, relay's, false, handed over",
        "0, 0, true, relay's, false, handed over",
        "0, 0, false, relay's, false, refused",
        "0, 0, false, its own, false, handed over",
        "1000, 0, false, relay's, false, handed over",
    })
    void anEntryOfTheRelaysUidInItsPidNamespaceIsRefusedUnlessAllowed(
            int uid, int relayUid, boolean root, String pids, boolean allowed, String outcome) {
        PeerProcess.Namespace namespace = pids.equals("relay's") ? RELAYS : ITS_OWN;

        assertEquals(
                outcome,
                SharedPids.refusal(new Transport.Peer(42, uid), relayUid, root, namespace, RELAYS, allowed)
                        .map(why -> "refused")
                        .orElse("handed over"));
    }

    @org.junit.jupiter.api.Test
    void theRefusalNamesTheNamespaceAndTheWayOut() {
        assertEquals(
                "the entry (pid 42) runs as the relay's uid 1000 in the relay's pid namespace pid:[4026531836], where"
                        + " it and its command could signal and trace the relay (expected: an entry in a pid namespace"
                        + " of its own, e.g. unshare --pid --fork, or of another uid; or handoff.allowSharedPidNamespace"
                        + " in the host configuration)",
                SharedPids.refusal(new Transport.Peer(42, 1000), 1000, false, RELAYS, RELAYS, false)
                        .orElseThrow());
    }
}
