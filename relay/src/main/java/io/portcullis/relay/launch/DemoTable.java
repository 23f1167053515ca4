package io.portcullis.relay.launch;

import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import java.util.ArrayList;
import java.util.List;

/** The demo's table: one line per connection, with what curl saw and what the relay decided and why. */
final class DemoTable {
    private static final List<String> HEADINGS = List.of("TARGET", "CURL SAW", "VERDICT", "WHY");

    /**
     * One connection's outcome.
     *
     * @param decision the relay's decision line for it, or null when none arrived
     */
    record Line(DemoRow row, CurlSeen curl, Decision decision) {
        String verdict() {
            if (decision == null) {
                return "no decision";
            }
            return decision.code() == null ? decision.verdict() : decision.verdict() + " " + decision.code();
        }

        /** Whether the relay decided as the demo's policy says it should. */
        boolean asExpected() {
            return decision != null && row.allowed() == Decision.ALLOW.equals(decision.verdict());
        }
    }

    private DemoTable() {}

    /** One line per code the lines show, in order of appearance: the code and its sentence. */
    static String codes(List<Line> lines) {
        StringBuilder out = new StringBuilder();
        lines.stream()
                .map(Line::decision)
                .filter(d -> d != null && d.code() != null)
                .map(Decision::code)
                .distinct()
                .forEach(code -> {
                    DenyCode known = DenyCode.of(code);
                    out.append("  ")
                            .append(code)
                            .append(": ")
                            .append(known == null ? "(unknown code)" : known.sentence())
                            .append('\n');
                });
        return out.toString();
    }

    static String render(List<Line> lines) {
        List<List<String>> cells = new ArrayList<>();
        cells.add(HEADINGS);
        for (Line line : lines) {
            cells.add(List.of(
                    line.row().url(),
                    line.curl().describe(),
                    line.verdict(),
                    line.row().about()));
        }
        int[] widths = new int[HEADINGS.size()];
        for (List<String> row : cells) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (List<String> row : cells) {
            for (int i = 0; i < widths.length; i++) {
                String cell = row.get(i);
                out.append(cell);
                if (i < widths.length - 1) {
                    out.append(" ".repeat(widths[i] - cell.length() + 2));
                }
            }
            out.append('\n');
        }
        return out.toString();
    }
}
