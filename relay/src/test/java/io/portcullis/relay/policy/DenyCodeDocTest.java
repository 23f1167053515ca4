package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/policy.md lists every deny code with its sentence, in enum order, and nothing else. */
class DenyCodeDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| (.+) \\|$", Pattern.MULTILINE);

    @Test
    void policyDocMatchesTheEnum() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "policy.md"));
        String section = doc.substring(doc.indexOf("## Deny codes"));
        section = section.substring(0, section.indexOf("\n## ", 3));
        List<String> documented = new ArrayList<>();
        for (Matcher m = ROW.matcher(section); m.find(); ) {
            documented.add(m.group(1) + ": " + m.group(2));
        }
        List<String> expected = new ArrayList<>();
        for (DenyCode code : DenyCode.values()) {
            expected.add(code.code() + ": " + code.sentence());
        }
        assertEquals(expected, documented);
    }

    @Test
    void codesAreStableLowercaseHyphenatedAndUnique() {
        for (DenyCode code : DenyCode.values()) {
            assertTrue(code.code().matches("[a-z]+(-[a-z]+)*"), code.code());
            assertEquals(Optional.of(code), DenyCode.of(code.code()));
        }
    }
}
