package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.portcullis.owner.OwnerEvidence;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who may hold the port of a local upstream proxy or DNS server (R25, issue 26): by default root,
 * the relay's own uid (1000 here), and anyone on a privileged port; when named, exactly those.
 */
class HolderUidsTest {
    private static final int RELAY_UID = 1000;

    @ParameterizedTest(name = "uids {0}, holders {1}, privileged {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            default | 0         | false | trusted
            default | 1000      | false | trusted
            default | 0 1000    | false | trusted
            default | 4300      | false | refused
            default | 0 4300    | false | refused
            default | 4300      | true  | trusted
            default | 991       | true  | trusted
            default | -         | false | refused
            default | -         | true  | refused
            991     | 991       | true  | trusted
            991     | 991       | false | trusted
            991     | 0         | true  | refused
            991     | 1000      | false | refused
            991     | 991 4300  | true  | refused
            0 991   | 0 991     | false | trusted
            991     | -         | true  | refused
            """)
    void everyHolderMustBeTrusted(String uids, String holders, boolean privileged, String expected) {
        HostConfig.HolderUids trusted = uids.equals("default")
                ? HostConfig.HolderUids.DEFAULT
                : new HostConfig.HolderUids(Optional.of(
                        Arrays.stream(uids.split(" ")).map(Integer::valueOf).collect(Collectors.toSet())));
        List<OwnerEvidence.Listener> sockets = holders.equals("-")
                ? List.of()
                : Arrays.stream(holders.split(" "))
                        .map(uid -> new OwnerEvidence.Listener(
                                "inet", "127.0.0.1", 5353, Integer.parseInt(uid), 1, false, ""))
                        .toList();
        Optional<String> refusal = trusted.refusal(sockets, privileged, RELAY_UID);
        assertEquals(expected, refusal.isEmpty() ? "trusted" : "refused", refusal.toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            default | 4300 | its port is held by uid 4300 (expected: root or the relay's uid 1000, since any user may bind this port)
            991 0   | 4300 | its port is held by uid 4300 (expected: one of the configured uids [0, 991])
            default | -    | nothing holds its port
            """)
    void theRefusalSaysWhoHoldsThePortAndWhoMay(String uids, String holder, String sentence) {
        HostConfig.HolderUids trusted = uids.equals("default")
                ? HostConfig.HolderUids.DEFAULT
                : new HostConfig.HolderUids(Optional.of(
                        Arrays.stream(uids.split(" ")).map(Integer::valueOf).collect(Collectors.toSet())));
        List<OwnerEvidence.Listener> sockets = holder.equals("-")
                ? List.of()
                : List.of(
                        new OwnerEvidence.Listener("inet", "127.0.0.1", 5353, Integer.parseInt(holder), 1, false, ""));
        assertEquals(Optional.of(sentence), trusted.refusal(sockets, false, RELAY_UID));
    }

    @Test
    void noUidIsAConfigurationError() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new HostConfig.HolderUids(Optional.of(Set.of())));
        assertEquals("uids: [] (expected: at least one uid)", e.getMessage());
    }
}
