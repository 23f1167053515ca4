package io.portcullis.log;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.Serial;

/**
 * Jackson's escapes for a log line: every control character inside a string is written as
 * {@code \\uXXXX}: C0 and DEL, C1 (U+0080 to U+009F, U+0085 among them) and U+2028, U+2029, which
 * some line readers take for a line end; so one line is always one record, whatever a client sent.
 * The decision log and the operational log both write with these.
 */
public final class ControlEscapes extends CharacterEscapes {
    @Serial
    private static final long serialVersionUID = 1L;

    private static final int[] ASCII = standardAsciiEscapesForJSON();

    static {
        ASCII[0x7f] = ESCAPE_STANDARD;
    }

    /** The escapes, for a Jackson writer's {@code with(CharacterEscapes)}. */
    public ControlEscapes() {}

    /** Whether {@code ch} is written escaped. */
    public static boolean isEscaped(int ch) {
        return ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) || ch == 0x2028 || ch == 0x2029;
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
