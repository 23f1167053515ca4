package io.portcullis.relay.handoff;

import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.PeerProcess;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.util.Optional;

/**
 * Whether an entry may hand over from where it runs (SPEC R4, decision D69). An entry of the
 * relay's own uid in the relay's own pid namespace, and the program it becomes, can signal the
 * relay (SIGSTOP, SIGKILL, floods of SIGQUIT) and trace it, so its hand-over is refused unless the
 * host configuration allows it ({@code handoff.allowSharedPidNamespace}). Another uid cannot, nor
 * can a process in a pid namespace made under the relay's, which does not see the relay; root of
 * the relay's own user namespace is left out, since it holds every capability a pid namespace would
 * withhold. Read through the entry's pidfd; anything that cannot be read refuses.
 */
final class SharedPids {
    private SharedPids() {}

    /** Why the entry on {@code connection} may not hand over; empty when it may. */
    static Optional<String> check(int connection, Transport.Peer entry, boolean allowed) {
        int relayUid = Posix.effectiveUid();
        if (allowed || entry.uid() != relayUid) {
            return Optional.empty();
        }
        try (PeerProcess process = PeerProcess.of(connection, entry.pid())) {
            boolean root = entry.uid() == 0
                    && process.namespace(PeerProcess.Type.USER)
                            .equals(PeerProcess.Namespace.own(PeerProcess.Type.USER));
            return refusal(
                    entry,
                    relayUid,
                    root,
                    process.namespace(PeerProcess.Type.PID),
                    PeerProcess.Namespace.own(PeerProcess.Type.PID),
                    allowed);
        } catch (IOException e) {
            return Optional.of("cannot read the pid namespace of the entry (pid " + entry.pid() + ", uid " + entry.uid()
                    + "): " + e.getMessage() + EXPECTED);
        }
    }

    private static final String EXPECTED = " (expected: an entry in a pid namespace of its own, e.g. unshare --pid"
            + " --fork, or of another uid; or handoff.allowSharedPidNamespace in the host configuration)";

    /**
     * Why {@code entry}, in the pid namespace {@code pids}, may not hand over to a relay of {@code
     * relayUid} in {@code relayPids}; empty when it may. Pure.
     *
     * @param root whether the entry is root of the relay's own user namespace
     */
    static Optional<String> refusal(
            Transport.Peer entry,
            int relayUid,
            boolean root,
            PeerProcess.Namespace pids,
            PeerProcess.Namespace relayPids,
            boolean allowed) {
        if (allowed || entry.uid() != relayUid || root || !pids.equals(relayPids)) {
            return Optional.empty();
        }
        return Optional.of("the entry (pid " + entry.pid() + ") runs as the relay's uid " + relayUid
                + " in the relay's pid namespace " + pids + ", where it and its command could signal and trace"
                + " the relay" + EXPECTED);
    }
}
