package io.portcullis.relay.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.observe.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoTableTest {
    private static final DemoRow ALLOWED = new DemoRow("https://nas.lan:8443/", "nas.lan:8443", true, "listed");
    private static final DemoRow REFUSED =
            new DemoRow("https://169.254.169.254/", "169.254.169.254:443", false, "metadata");

    private static Decision decision(String target, String verdict, String code) {
        return new Decision(
                "2026-01-01T00:00:00Z", "demo", 1, "proxy", target, List.of(), null, verdict, code, null, 0, 0, 1, 1);
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
        assertFalse(new DemoTable.Line(REFUSED, CurlSeen.parse(null), null).asExpected());
        assertEquals("no decision", new DemoTable.Line(REFUSED, CurlSeen.parse(null), null).verdict());
    }

    @Test
    void eachCodeShownIsExplainedOnce() {
        String codes = DemoTable.codes(List.of(
                new DemoTable.Line(REFUSED, CurlSeen.parse(null), decision("a", "deny", "deny-listed")),
                new DemoTable.Line(REFUSED, CurlSeen.parse(null), decision("b", "deny", "deny-listed")),
                new DemoTable.Line(ALLOWED, CurlSeen.parse(null), decision("c", "allow", null))));
        assertEquals("  deny-listed: an address is in the operator's deny list\n", codes);
    }
}
