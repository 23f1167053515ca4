package io.portcullis.relay.door;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.decide.Times;
import io.portcullis.relay.policy.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Who may hold the gateway's port (SPEC R13 {@code door-gateway}), read from the owner check's evidence. */
class GatewayCheckTest {
    private static final int GATEWAY_UID = 1000;
    private static final int PORT = 18789;

    /** Listeners and holders written {@code uid,uid/uid}: the listeners' uids, then the holders'. */
    private static OwnerEvidence evidence(String shape) {
        String[] parts = shape.split("/", -1);
        List<OwnerEvidence.Listener> listeners = new ArrayList<>();
        for (String uid : parts[0].isEmpty() ? new String[0] : parts[0].split(",")) {
            listeners.add(new OwnerEvidence.Listener(
                    "inet", "127.0.0.1", PORT, Integer.parseInt(uid), listeners.size() + 1, false, ""));
        }
        List<OwnerEvidence.Process> processes = new ArrayList<>();
        for (String uid : parts[1].isEmpty() ? new String[0] : parts[1].split(",")) {
            processes.add(new OwnerEvidence.Process(
                    100 + processes.size(), Integer.parseInt(uid), List.of("gateway"), "/", "/usr/bin/node", 1));
        }
        return new OwnerEvidence(listeners, processes, null);
    }

    @ParameterizedTest(name = "listeners/holders {0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1000/1000      | allow",
                "1000,1000/1000 | allow",
                "/              | nothing listens on 127.0.0.1 port 18789",
                "65534/65534    | the gateway port is held by uid 65534, not the gateway's 1000",
                "1000,0/1000    | the gateway port is held by uid 0, not the gateway's 1000",
                "0/             | the gateway port is held by uid 0, not the gateway's 1000",
                "1000/          | no process of the gateway's uid 1000 holds the gateway port",
                "1000/0         | process 100 of uid 0 holds the gateway port",
            })
    void onlyTheGatewaysUidMayHoldItsPort(String shape, String expected) {
        Optional<String> refusal = GatewayCheck.refusal(evidence(shape.strip()), GATEWAY_UID, PORT);

        assertEquals(expected.equals("allow") ? Optional.empty() : Optional.of(expected), refusal);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // The gateway itself is always owner-gateway to the owner check: only the evidence counts.
                "GATEWAY | 1000/1000   | allow",
                "WALL    | 1000/1000   | allow",
                "OTHER_USER | 65534/   | door-gateway",
                "NONE    | /           | door-gateway",
                "ERROR   | /           | door-gateway",
            })
    void theVerdictFollowsTheEvidenceNotTheOwnerChecksCode(OwnerCode code, String shape, String expected) {
        OwnerAnswer answer = OwnerAnswer.deny(code, "test", evidence(shape.strip()));
        GatewayCheck check = new GatewayCheck(query -> CompletableFuture.completedFuture(answer), GATEWAY_UID, PORT);

        Verdict verdict = check.verdict("studio", "door route GET /kiosk/state", new Times())
                .join();

        assertEquals(
                expected,
                switch (verdict) {
                    case Verdict.Allow allow -> "allow";
                    case Verdict.Deny deny -> deny.code().code();
                });
    }

    @ParameterizedTest(name = "gateway uid {0}, port {1} -> {2}, nothing asked")
    @CsvSource({"-1, 18789, door-gateway", "1000, 0, connect-failed"})
    void anUnsetGatewayUidOrPortFailsEveryDoorRequestWithoutAsking(int uid, int port, String expected) {
        GatewayCheck check = new GatewayCheck(
                query -> {
                    throw new AssertionError("asked about " + query);
                },
                uid,
                port);

        Verdict verdict = check.verdict("studio", "door route", new Times()).join();

        assertEquals(expected, ((Verdict.Deny) verdict).code().code());
    }

    @ParameterizedTest(name = "port {0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0     | ok",
                "1     | ok",
                "65535 | ok",
                "-1    | port: -1 (expected: 0-65535, 0 for none)",
                "65536 | port: 65536 (expected: 0-65535, 0 for none)",
            })
    void thePortIsCheckedByTheRelaysOneCheckWithZeroForNone(int port, String expected) {
        String seen;
        try {
            new GatewayCheck(query -> new CompletableFuture<>(), GATEWAY_UID, port);
            seen = "ok";
        } catch (IllegalArgumentException e) {
            seen = e.getMessage();
        }
        assertEquals(expected, seen);
    }
}
