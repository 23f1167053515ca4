package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Decisions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DemoTableTest {
    private static final DemoRow ALLOWED = new DemoRow("https://nas.lan:8443/", "nas.lan:8443", true, "listed");
    private static final DemoRow REFUSED =
            new DemoRow("https://169.254.169.254/", "169.254.169.254:443", false, "metadata");

    private static Optional<Decision> decision(String target, String verdict, String code) {
        return Optional.of(Decisions.decision()
                .spawn("demo")
                .target(target)
                .verdict(verdict, code)
                .build());
    }

    @Test
    void columnsLineUpAndEachLineSaysWhatCurlSawAndTheVerdict() {
        String table = DemoTable.render(List.of(
                new DemoTable.Line(ALLOWED, CurlSeen.parse("200|200|0|"), decision("nas.lan:8443", "allow", null)),
                new DemoTable.Line(
                        REFUSED,
                        CurlSeen.parse("403|000|56|x"),
                        decision("169.254.169.254:443", "deny", "deny-listed"))));
        List<String> lines = table.lines().toList();
        assertEquals(3, lines.size(), table);
        int verdictColumn = lines.getFirst().indexOf("VERDICT");
        assertEquals("allow", lines.get(1).substring(verdictColumn).split("\\s+")[0], table);
        assertEquals(
                "deny deny-listed",
                lines.get(2)
                        .substring(verdictColumn, lines.get(2).indexOf("metadata"))
                        .strip(),
                table);
        assertTrue(lines.get(2).contains("CONNECT answered 403"), table);
    }

    @Test
    void aLineIsAsExpectedOnlyWithADecisionOfTheRowsVerdict() {
        assertTrue(new DemoTable.Line(ALLOWED, CurlSeen.parse(null), decision("t", "allow", null)).asExpected());
        assertFalse(new DemoTable.Line(ALLOWED, CurlSeen.parse(null), decision("t", "error", "connect-failed"))
                .asExpected());
        assertTrue(
                new DemoTable.Line(REFUSED, CurlSeen.parse(null), decision("t", "deny", "deny-listed")).asExpected());
        assertFalse(new DemoTable.Line(REFUSED, CurlSeen.parse(null), Optional.empty()).asExpected());
        assertEquals("no decision", new DemoTable.Line(REFUSED, CurlSeen.parse(null), Optional.empty()).verdict());
    }

    @Test
    void eachCodeShownIsExplainedOnce() {
        String codes = DemoTable.codes(List.of(
                new DemoTable.Line(REFUSED, CurlSeen.parse(null), decision("a", "deny", "deny-listed")),
                new DemoTable.Line(REFUSED, CurlSeen.parse(null), decision("b", "deny", "deny-listed")),
                new DemoTable.Line(ALLOWED, CurlSeen.parse(null), decision("c", "allow", null))));
        assertEquals("  deny-listed: an address is in the operator's deny list\n", codes);
    }

    private static final DemoRow OWN = new DemoRow("http://127.0.0.1:5000/", "forward:5000", true, "yours", true);

    private static Optional<Decision> owned(String verdict, String code, OwnerEvidence evidence) {
        return Optional.of(Decisions.decision()
                .spawn("demo")
                .kind("forward")
                .target("forward:5000")
                .resolved("127.0.0.1")
                .verdict(verdict, code)
                .owner(evidence)
                .build());
    }

    @Test
    void anOwnerRowsWhyShowsTheSocketsUidAndItsHolder() {
        OwnerEvidence seen = new OwnerEvidence(
                List.of(new OwnerEvidence.Listener("inet", "0.0.0.0", 5000, 1000, 7, false, "")),
                List.of(new OwnerEvidence.Process(4242, 1000, List.of("java"), "/", "/usr/lib/jvm/bin/java", 7)),
                null);
        assertEquals(
                "yours [uid 1000's socket, pid 4242 java]",
                new DemoTable.Line(OWN, CurlSeen.parse(null), owned("allow", null, seen)).why());
        assertEquals(
                "listed",
                new DemoTable.Line(ALLOWED, CurlSeen.parse(null), decision("nas.lan:8443", "allow", null)).why(),
                "a row without the owner check shows its case only");
    }

    /** Issue 12: with Docker down, the root service's row says Docker is optional, not that the demo failed. */
    @Test
    void withDockerDownTheRootRowSaysDockerIsOptional() {
        OwnerEvidence seen = new OwnerEvidence(
                List.of(new OwnerEvidence.Listener("inet", "127.0.0.1", 5000, 0, 7, false, "")), List.of(), null);
        DemoTable.Line line = new DemoTable.Line(
                new DemoRow("http://127.0.0.1:5000/", "forward:5000", false, "root's", true),
                CurlSeen.parse(null),
                owned("deny", "owner-docker-down", seen));
        assertEquals(DemoTable.DOCKER_DOWN + " [uid 0's socket]", line.why());
        assertTrue(line.why().contains("optional"), line.why());
        assertTrue(line.asExpected());
    }
}
