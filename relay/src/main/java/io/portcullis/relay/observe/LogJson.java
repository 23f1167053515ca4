package io.portcullis.relay.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The JSON text of a log line. Every control character inside a string is escaped as {@code \\uXXXX}:
 * C0 and DEL, C1 (U+0080 to U+009F, U+0085 among them) and U+2028, U+2029, which some line readers
 * take for a line end; so one line is always one record (SPEC R17), whatever the client sent.
 */
final class LogJson {
    private static final ObjectWriter JSON = new ObjectMapper().writer().with(new ControlEscapes());

    private LogJson() {}

    static String text(Object line) {
        try {
            return JSON.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The line's UTF-8 bytes, with its line end. */
    static byte[] line(Object line) {
        return (text(line) + '\n').getBytes(StandardCharsets.UTF_8);
    }

    static boolean isEscaped(int ch) {
        return ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) || ch == 0x2028 || ch == 0x2029;
    }

    private static final class ControlEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private static final int[] ASCII = standardAsciiEscapesForJSON();

        static {
            ASCII[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        /** Asked for every character past ASCII. */
        @Override
        public SerializableString getEscapeSequence(int ch) {
            return isEscaped(ch) ? new SerializedString(String.format("\\u%04x", ch)) : null;
        }
    }
}
