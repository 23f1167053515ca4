package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.portcullis.relay.rules.Rules;

/** The target parser never throws anything but a clean refusal, and its canonical form is stable. */
class TargetFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(String text) {
        if (text == null) {
            return;
        }
        Target target;
        try {
            target = Target.parse(text);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
            return;
        }
        assertEquals(target, Target.parse(target.toString()), "the canonical form parses to itself");
        assertTrue(target.host().length() <= Target.MAX_NAME, target.host());
        assertTrue(target.host().chars().allMatch(c -> c > 0x20 && c < 0x7f), target.host());
        if (target.literal().isPresent()) {
            assertEquals(target.host(), Target.text(target.literal().get()));
            Rules.isGlobalUnicast(target.literal().get());
        }
    }
}
