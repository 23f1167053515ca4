package io.portcullis.relay.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * The request-head parser refuses only with a clean message; what it accepts holds no CR, LF or
 * NUL, has token names, parses to itself once written back, and has framing that is refused or
 * one of the three forms.
 */
class HeadParserFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(byte[] bytes) {
        if (bytes == null) {
            return;
        }
        String text = new String(bytes, StandardCharsets.ISO_8859_1) + "\r\n\r\n";
        RequestHead head;
        try {
            head = HeadParser.parse(text);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
            return;
        }
        StringBuilder written = new StringBuilder(head.method() + " " + head.target() + " " + head.version() + "\r\n");
        for (RequestHead.Field field : head.fields()) {
            assertTrue(HeadParser.isToken(field.name()), field.name());
            assertTrue(field.value().chars().noneMatch(c -> c == '\r' || c == '\n' || c == 0), field.value());
            written.append(field.name()).append(": ").append(field.value()).append("\r\n");
        }
        assertEquals(head, HeadParser.parse(written.append("\r\n").toString()));
        try {
            Framing framing = Framing.of(head);
            Outgoing.of(head, framing, "/", "a", name -> false);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
        }
    }
}
