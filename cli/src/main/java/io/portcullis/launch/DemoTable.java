package io.portcullis.launch;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The demo's table: one line per connection, with what curl saw and what the relay decided and why. */
final class DemoTable {
    /** A root service's row when Docker does not answer: not a failure of the demo. */
    static final String DOCKER_DOWN = "root's service; Docker is not running (optional: only containers need it)";

    private static final List<String> HEADINGS = List.of("TARGET", "CURL SAW", "VERDICT", "WHY");

    /**
     * One connection's outcome.
     *
     * @param decision the relay's decision line for it; empty when none arrived
     */
    record Line(DemoRow row, CurlSeen curl, Optional<Decision> decision) {
        String verdict() {
            return decision.map(d -> d.verdict()
                            + d.code().map(code -> " " + code.code()).orElse(""))
                    .orElse("no decision");
        }

        /**
         * The case the row shows and, for the owner check's rows, what it saw: the socket's uid and
         * the process holding it. With Docker down, a root service's row says Docker is optional.
         */
        String why() {
            String about = decision.flatMap(Decision::code)
                            .filter(code -> code == DenyCode.OWNER_DOCKER_DOWN)
                            .isPresent()
                    ? DOCKER_DOWN
                    : row.about();
            Optional<OwnerEvidence> evidence = decision.flatMap(Decision::owner);
            if (!row.evidence() || evidence.isEmpty()) {
                return about;
            }
            OwnerEvidence seen = evidence.get();
            if (seen.listeners().isEmpty()) {
                return about;
            }
            StringBuilder why = new StringBuilder(about)
                    .append(" [uid ")
                    .append(seen.listeners().getFirst().uid())
                    .append("'s socket");
            if (!seen.processes().isEmpty()) {
                OwnerEvidence.Process holder = seen.processes().getFirst();
                why.append(", pid ").append(holder.pid());
                Optional.ofNullable(holder.exe())
                        .ifPresent(exe -> why.append(' ').append(name(exe)));
            }
            return why.append(']').toString();
        }

        private static String name(String exe) {
            int slash = exe.lastIndexOf('/');
            return slash < 0 ? exe : exe.substring(slash + 1);
        }

        /** Whether the relay decided as the demo's policy says it should. */
        boolean asExpected() {
            return decision.isPresent() && row.allowed() == decision.get().allowed();
        }
    }

    private DemoTable() {}

    /** One line per code the lines show, in order of appearance: the code and its sentence. */
    static String codes(List<Line> lines) {
        StringBuilder out = new StringBuilder();
        lines.stream()
                .flatMap(line -> line.decision().flatMap(Decision::code).stream())
                .distinct()
                .forEach(code -> {
                    out.append("  ")
                            .append(code.code())
                            .append(": ")
                            .append(code.sentence())
                            .append('\n');
                });
        return out.toString();
    }

    static String render(List<Line> lines) {
        List<List<String>> cells = new ArrayList<>();
        cells.add(HEADINGS);
        for (Line line : lines) {
            cells.add(List.of(line.row().url(), line.curl().describe(), line.verdict(), line.why()));
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
