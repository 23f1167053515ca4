package io.portcullis.log;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * Jackson's escapes for a log line: every control character inside a string is written as
 * {@code \\uXXXX}: C0 and DEL, C1 (U+0080 to U+009F, U+0085 among them) and U+2028, U+2029, which
 * some line readers take for a line end; so one line is always one record, whatever a client sent.
 * The decision log and the operational log both write with these, and {@link #escaped(String)} gives
 * a line for a terminal the same escapes.
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

    /**
     * {@code text} with each character that {@link #isEscaped(int)} names written as {@code \\uXXXX}, and
     * nothing else changed: for a line a person reads on a terminal, where a raw control (ESC, CSI, a
     * line or paragraph separator) would be obeyed instead of shown.
     */
    public static String escaped(String text) {
        StringBuilder out = null;
        int plain = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (!isEscaped(ch)) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() + 16);
            }
            out.append(text, plain, i).append(sequence(ch));
            plain = i + 1;
        }
        return out == null ? text : out.append(text, plain, text.length()).toString();
    }

    private static String sequence(int ch) {
        return String.format("\\u%04x", ch);
    }

    @Override
    public int[] getEscapeCodesForAscii() {
        return ASCII;
    }

    /** Asked for every character past ASCII; null (Jackson's contract) leaves it as it is. */
    @Override
    public @Nullable SerializableString getEscapeSequence(int ch) {
        return isEscaped(ch) ? new SerializedString(sequence(ch)) : null;
    }
}
