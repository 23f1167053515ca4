package io.portcullis.relay.decisionlog;

import static io.portcullis.relay.testing.Decisions.decision;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import java.util.List;
import java.util.Map;

/**
 * Whatever a client, a process or a container label puts in a decision's strings, the
 * hand-written line is Jackson's, and it stays one line: no byte of it is a line end.
 */
class DecisionLineFuzzTest {

    @FuzzTest(maxDuration = "10s")
    void anyStringsMakeJacksonsLine(byte[] bytes) {
        if (bytes == null) {
            return;
        }
        // Two bytes a UTF-16 unit, so every character (split surrogates too) can occur.
        char[] units = new char[bytes.length / 2];
        for (int i = 0; i < units.length; i++) {
            units[i] = (char) ((bytes[2 * i] & 0xff) << 8 | (bytes[2 * i + 1] & 0xff));
        }
        String text = new String(units);
        int cut = text.length() / 2;
        String first = text.substring(0, cut);
        String second = text.substring(cut);
        Decision line = decision()
                .spawn(first)
                .target(second)
                .kind(text)
                .owner(new OwnerEvidence(
                        List.of(new OwnerEvidence.Listener(first, second, 1, 2, 3, null, text)),
                        List.of(new OwnerEvidence.Process(4, 5, List.of(first, second), text, first, 6)),
                        new OwnerEvidence.Container(second, first, Map.of(first, second))))
                .build();

        String written = DecisionLine.text(line);

        assertEquals(LogJson.jackson(line), written);
        assertEquals(-1, written.indexOf('\n'));
        assertEquals(-1, written.indexOf('\r'));
    }
}
