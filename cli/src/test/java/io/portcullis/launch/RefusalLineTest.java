package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.testing.Decisions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RefusalLineTest {
    private static final RefusalLine INVOKER_1000 = new RefusalLine(1000, RefusalLine.INVOKER);

    private static Decision decision(
            String kind, String target, List<String> resolved, String verdict, String code, OwnerEvidence owner) {
        return Decisions.decision()
                .spawn("run-1")
                .kind(kind)
                .target(target)
                .resolved(resolved.toArray(String[]::new))
                .verdict(verdict, code)
                .owner(owner)
                .build();
    }

    private static OwnerEvidence listenerOf(int uid) {
        return new OwnerEvidence(
                List.of(new OwnerEvidence.Listener("inet", "127.0.0.1", 5000, uid, 42, false, "")), List.of(), null);
    }

    private static Decision proxied(String method, String target, String code) {
        return Decisions.decision()
                .spawn("run-1")
                .target(target)
                .verdict("deny", code)
                .method(method)
                .build();
    }

    @Test
    void aRefusedConnectIsOneLineWithItsMethodCodeAndSentence() {
        assertEquals(
                Optional.of("portcullis: refused CONNECT nas.lan:22: not-listed (no listed entry matches and the"
                        + " internet shape does not apply)"),
                INVOKER_1000.of(proxied("CONNECT", "nas.lan:22", "not-listed")));
        assertEquals(
                Optional.of("portcullis: refused GET www.example.test:80: not-listed (no listed entry matches and"
                        + " the internet shape does not apply)"),
                INVOKER_1000.of(proxied("GET", "www.example.test:80", "not-listed")));
        assertEquals(
                Optional.of("portcullis: refused proxy (no target read): bad-request (the request or its target is"
                        + " malformed)"),
                INVOKER_1000.of(proxied(null, null, "bad-request")));
    }

    @ParameterizedTest(name = "{0} {1} -> nothing")
    @CsvSource({"allow, ", "error, client-closed"})
    void anAllowedConnectionOrAClientThatLeftPrintsNothing(String verdict, String code) {
        assertEquals(
                Optional.empty(), INVOKER_1000.of(decision("proxy", "nas.lan:443", List.of(), verdict, code, null)));
    }

    @Test
    void aFailedConnectionSaysFailed() {
        assertEquals(
                Optional.of("portcullis: failed forward 127.0.0.1:5000: connect-failed (every checked address refused"
                        + " the connection)"),
                INVOKER_1000.of(
                        decision("forward", "forward:5000", List.of("127.0.0.1"), "error", "connect-failed", null)));
    }

    /** Issue 12: the refusal names the socket's real uid and the host-file field that would let it through. */
    @Test
    void anotherUsersServiceNamesItsUidTheGatewaysAndWhatToChange() {
        String line = INVOKER_1000
                .of(decision(
                        "forward", "forward:5000", List.of("127.0.0.1"), "deny", "owner-other-user", listenerOf(4100)))
                .orElseThrow();
        assertEquals(
                "portcullis: refused forward 127.0.0.1:5000: owner-other-user (the listener belongs to another user:"
                        + " the socket is uid 4100's, and the gateway's uid is 1000 (the uid that runs portcullis);"
                        + " to reach that user's services, run portcullis as uid 4100 (or with sudo from it), or set"
                        + " owner.gatewayUid 4100 in the host file (--host))",
                line);
        String fromFile = new RefusalLine(0, RefusalLine.HOST_FILE)
                .of(decision("forward", "forward:5000", List.of("::1"), "deny", "owner-other-user", listenerOf(4100)))
                .orElseThrow();
        assertTrue(
                fromFile.startsWith("portcullis: refused forward [::1]:5000: owner-other-user")
                        && fromFile.contains("the gateway's uid is 0 (owner.gatewayUid in --host)"),
                fromFile);
    }

    @Test
    void aRunByRootHasNoGatewayAndSaysSo() {
        String line = new RefusalLine(-1, RefusalLine.ROOT)
                .of(decision(
                        "forward", "forward:5000", List.of("127.0.0.1"), "deny", "owner-other-user", listenerOf(1000)))
                .orElseThrow();
        assertTrue(
                line.contains("the socket is uid 1000's, and there is no gateway uid (root is never taken as the"
                        + " gateway's user); to reach that user's services, run portcullis as uid 1000"),
                line);
    }

    @Test
    void aRootServiceSaysHowToReachIt() {
        String line = INVOKER_1000
                .of(decision("forward", "forward:5000", List.of("127.0.0.1"), "deny", "owner-root", listenerOf(0)))
                .orElseThrow();
        assertTrue(
                line.endsWith("; a root service is reached only as a port that a container publishes: run it as"
                        + " uid 1000, the gateway's user)"),
                line);
        String byRoot = new RefusalLine(-1, RefusalLine.ROOT)
                .of(decision("forward", "forward:5000", List.of("127.0.0.1"), "deny", "owner-root", listenerOf(0)))
                .orElseThrow();
        assertTrue(byRoot.endsWith("run it as your own user, and portcullis as that user (or with sudo))"), byRoot);
    }

    @Test
    void aDnsRefusalNamesTheName() {
        assertEquals(
                "portcullis: refused DNS secret.example: not-listed (no listed entry matches and the internet shape"
                        + " does not apply)",
                INVOKER_1000
                        .of(decision("dns", "secret.example", List.of(), "deny", "not-listed", null))
                        .orElseThrow());
    }

    /**
     * Issue 26 (#13): a control character that the client put in its target or method reaches the
     * person's terminal as the JSON log writes it ({@code \\uXXXX}), never raw: C0, DEL, C1 (CSI
     * U+009B and NEL U+0085 among them), U+2028 and U+2029. Printable characters past ASCII stay.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "ESC, 0x1b, \\u001b",
        "CSI, 0x9b, \\u009b",
        "NEL, 0x85, \\u0085",
        "line separator, 0x2028, \\u2028",
        "paragraph separator, 0x2029, \\u2029",
        "DEL, 0x7f, \\u007f",
        "LF, 0x0a, \\u000a",
        "CR, 0x0d, \\u000d",
        "NUL, 0x00, \\u0000",
        "BEL, 0x07, \\u0007",
        "C1 first, 0x80, \\u0080",
        "C1 last, 0x9f, \\u009f",
        "no-break space (printable), 0xa0, \u00a0",
        "e acute (printable), 0xe9, \u00e9",
    })
    void aControlCharacterInTheTargetOrMethodIsEscapedAsInTheLog(String name, String codePoint, String shown) {
        String ch = Character.toString(Integer.decode(codePoint));
        assertEquals(
                Optional.of("portcullis: refused CONNECT" + shown + " evil" + shown + "[2J.test:443: not-listed"
                        + " (no listed entry matches and the internet shape does not apply)"),
                INVOKER_1000.of(proxied("CONNECT" + ch, "evil" + ch + "[2J.test:443", "not-listed")));
    }

    @Test
    void runDecisionsWriteEachRefusalOnceAndEveryDecisionToTheLog() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<Decision> logged = new ArrayList<>();
        Decision refused = decision("dns", "secret.example", List.of(), "deny", "not-listed", null);
        try (RunDecisions decisions = new RunDecisions(
                INVOKER_1000, new PrintStream(err, true, StandardCharsets.UTF_8), Optional.of(logged::add))) {
            decisions.accept(decision("proxy", "nas.lan:443", List.of(), "allow", null, null));
            decisions.accept(refused);
            decisions.accept(refused); // A and AAAA: the same line within a second
        }
        assertEquals(3, logged.size());
        assertEquals(
                List.of(INVOKER_1000.of(refused).orElseThrow()),
                err.toString(StandardCharsets.UTF_8).lines().toList());
    }

    /** Issue 25 #7: a tunnel's decision line is written when it opens; the JSON log of {@code run} gets it then. */
    @Test
    void runDecisionsPassATunnelsOpeningToTheLogAndSayNothingOfIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<Decision> opened = new ArrayList<>();
        DecisionSink log = new DecisionSink() {
            @Override
            public void accept(Decision decision) {}

            @Override
            public void opened(Decision decision) {
                opened.add(decision);
            }
        };
        Decision tunnel = decision("proxy", "nas.lan:443", List.of(), "allow", null, null);
        try (RunDecisions decisions =
                new RunDecisions(INVOKER_1000, new PrintStream(err, true, StandardCharsets.UTF_8), Optional.of(log))) {
            decisions.opened(tunnel);
        }
        assertEquals(List.of(tunnel), opened);
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
}
