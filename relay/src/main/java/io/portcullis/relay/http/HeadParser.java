package io.portcullis.relay.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses a complete request head (request line, fields, blank line) from its raw bytes, read as
 * ISO-8859-1, and refuses anything a lenient parser would have to guess about (RFC 9112): lines
 * end with CRLF only; no NUL or other control byte but HTAB in a value; single spaces in the
 * request line; a token method; a target of visible bytes; version {@code HTTP/1.1} or
 * {@code HTTP/1.0}; field names that are tokens with no space before the colon; no obsolete line
 * folding. Pure: no I/O.
 */
public final class HeadParser {
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 'a' + 'A'] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private HeadParser() {}

    /**
     * The head in {@code text}, which must end with the blank line.
     *
     * @throws IllegalArgumentException naming the first problem; the message never quotes a value
     */
    public static RequestHead parse(String text) {
        if (!text.endsWith("\r\n\r\n")) {
            throw new IllegalArgumentException("head: does not end with an empty line (expected: CRLF CRLF)");
        }
        List<String> lines = lines(text.substring(0, text.length() - 2));
        String[] start = requestLine(lines.getFirst());
        List<RequestHead.Field> fields = new ArrayList<>(lines.size() - 1);
        for (String line : lines.subList(1, lines.size())) {
            fields.add(field(line));
        }
        return new RequestHead(start[0], start[1], start[2], fields);
    }

    /** The lines of the head, each ended by CRLF, without it; a lone CR or LF, or a NUL, is refused. */
    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') {
                throw new IllegalArgumentException("head: a NUL byte (expected: none)");
            }
            if (c == '\r') {
                if (i + 1 >= text.length() || text.charAt(i + 1) != '\n') {
                    throw new IllegalArgumentException("head: a bare CR (expected: CR only before LF)");
                }
                lines.add(text.substring(from, i));
                from = i + 2;
                i++;
            } else if (c == '\n') {
                throw new IllegalArgumentException("head: a bare LF (expected: CRLF line ends)");
            }
        }
        if (from != text.length() || lines.isEmpty()) {
            throw new IllegalArgumentException("head: an unterminated line (expected: CRLF line ends)");
        }
        return lines;
    }

    /**
     * Checks a request line alone (without its CRLF), so that a decoder can refuse one as soon as
     * it ends: an HTTP/0.9 line ({@code GET /path}, no version) is never followed by a blank line,
     * and waiting for one would hang the client until the header timeout.
     *
     * @throws IllegalArgumentException naming the problem
     */
    static void checkRequestLine(String line) {
        requestLine(line);
    }

    private static String[] requestLine(String line) {
        String[] parts = line.split(" ", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException(
                    "request line: " + parts.length + " parts (expected: method SP target SP version)");
        }
        if (!isToken(parts[0])) {
            throw new IllegalArgumentException("method: not a token (expected: e.g. GET)");
        }
        if (parts[1].isEmpty()) {
            throw new IllegalArgumentException("target: empty (expected: a request target)");
        }
        for (int i = 0; i < parts[1].length(); i++) {
            char c = parts[1].charAt(i);
            if (c <= 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("target: a control byte (expected: visible bytes)");
            }
        }
        if (!parts[2].equals(RequestHead.HTTP_1_1) && !parts[2].equals(RequestHead.HTTP_1_0)) {
            throw new IllegalArgumentException("version: not HTTP/1.1 or HTTP/1.0 (expected: one of them)");
        }
        return parts;
    }

    private static RequestHead.Field field(String line) {
        if (line.isEmpty() || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
            throw new IllegalArgumentException("field: obsolete line folding (expected: one line per field)");
        }
        int colon = line.indexOf(':');
        if (colon < 1 || !isToken(line.substring(0, colon))) {
            throw new IllegalArgumentException(
                    "field: a name that is not a token, or space before the colon (expected: name:value)");
        }
        String value = trim(line.substring(colon + 1));
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new IllegalArgumentException("field: a control byte in a value (expected: none)");
            }
        }
        return new RequestHead.Field(line.substring(0, colon), value);
    }

    private static String trim(String value) {
        int from = 0;
        int to = value.length();
        while (from < to && (value.charAt(from) == ' ' || value.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (value.charAt(to - 1) == ' ' || value.charAt(to - 1) == '\t')) {
            to--;
        }
        return value.substring(from, to);
    }

    /** True when {@code text} is an RFC 9110 token: one or more tchar. */
    public static boolean isToken(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 128 || !TCHAR[c]) {
                return false;
            }
        }
        return true;
    }
}
