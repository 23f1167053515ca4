package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The section-5 pages of the two JSON formats (packaging/man, kept by hand) against docs/policy.md,
 * the source of truth for every field: each field of a format's table there is a field of its page,
 * and the page documents no field the table lacks, so the two cannot drift (issue 25, #13).
 */
class SectionFivePagesTest {
    /** A table row's first cell: {@code | `hosts[i].target` | ...}. */
    private static final Pattern TABLE_FIELD = Pattern.compile("(?m)^\\| `([A-Za-z][\\w.\\[\\]]*)` \\|");

    /** A field's tag in the page: {@code .TP} then {@code \fBname\fR}. */
    private static final Pattern PAGE_FIELD = Pattern.compile("(?m)^\\.TP\\n\\\\fB([A-Za-z][\\w.\\[\\]]*)\\\\fR");

    @ParameterizedTest(name = "{1}")
    @CsvSource({
        "## The spawn policy (SPEC R1), portcullis-spawn.json.5",
        "## The host configuration (SPEC R2), portcullis-host.json.5",
    })
    void thePageHasEveryFieldOfPolicyMdsTableAndNoOther(String heading, String page) throws Exception {
        Set<String> documented = tableFields(heading);
        assertTrue(documented.size() > 10, heading + ": " + documented);
        String troff =
                Files.readString(Portcullis.root().resolve("packaging/man").resolve(page));
        Set<String> inPage = new LinkedHashSet<>();
        Matcher field = PAGE_FIELD.matcher(troff);
        while (field.find()) {
            inPage.add(field.group(1));
        }
        List<String> missing = new ArrayList<>(documented);
        missing.removeAll(inPage);
        List<String> extra = new ArrayList<>(inPage);
        extra.removeAll(documented);
        assertEquals(List.of(), missing, page + " lacks fields that docs/policy.md documents");
        assertEquals(List.of(), extra, page + " documents fields that docs/policy.md does not");
    }

    /** Kept in the repository as troff: groff reads each without a warning. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"portcullis-spawn.json.5", "portcullis-host.json.5"})
    void groffReadsThePageWithoutAWarning(String page) throws Exception {
        Path file = Portcullis.root().resolve("packaging/man").resolve(page);
        Run run = Run.of(List.of("groff", "-man", "-Tutf8", "-ww", "-z", file.toString()), "", 30);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.err(), run.toString());
    }

    /** The first column of the table under {@code heading} in docs/policy.md. */
    private static Set<String> tableFields(String heading) throws Exception {
        String policy = Files.readString(Portcullis.root().resolve("docs/policy.md"));
        int start = policy.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, heading + " in docs/policy.md");
        int end = policy.indexOf("\n#", start + heading.length() + 2);
        String section = policy.substring(start, end < 0 ? policy.length() : end);
        Set<String> fields = new LinkedHashSet<>();
        Matcher field = TABLE_FIELD.matcher(section);
        while (field.find()) {
            fields.add(field.group(1));
        }
        return fields;
    }
}
