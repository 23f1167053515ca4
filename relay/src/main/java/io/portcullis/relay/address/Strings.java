package io.portcullis.relay.address;

/** Shows untrusted text in one line of a message, quoted, with control bytes escaped. */
public final class Strings {
    private static final int MAX = 300;

    private Strings() {}

    public static String quote(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX) + 2).append('"');
        for (int i = 0; i < text.length() && i < MAX; i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || Character.isISOControl(c) || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (text.length() > MAX) {
            out.append("...");
        }
        return out.append('"').toString();
    }
}
