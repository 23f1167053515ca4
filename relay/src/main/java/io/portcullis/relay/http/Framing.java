package io.portcullis.relay.http;

import java.util.List;

/**
 * How a request's body is delimited (RFC 9112 section 6), decided only when the head leaves no
 * doubt: a single {@code Content-Length} of digits, or a single {@code Transfer-Encoding: chunked}
 * in HTTP/1.1, or neither (no body). Both, two of either, a list, or any other coding is refused,
 * because two parsers could read it two ways (request smuggling); so is a body on a {@code GET}
 * or {@code HEAD}, which a server may ignore and then read as the next request (SPEC R10).
 */
public sealed interface Framing {

    /** No body. */
    record None() implements Framing {}

    /** Exactly {@code bytes} bytes of body. */
    record Length(long bytes) implements Framing {
        public Length {
            if (bytes < 0) {
                throw new IllegalArgumentException("bytes: " + bytes + " (expected: >= 0)");
            }
        }
    }

    /** A chunked body. */
    record Chunked() implements Framing {}

    /** The longest Content-Length accepted: 18 digits always fit a long. */
    int MAX_DIGITS = 18;

    /**
     * The framing of {@code head}'s body.
     *
     * @throws IllegalArgumentException when the framing is ambiguous or not supported
     */
    static Framing of(RequestHead head) {
        List<String> lengths = head.values("Content-Length");
        List<String> codings = head.values("Transfer-Encoding");
        if (!lengths.isEmpty() && !codings.isEmpty()) {
            throw new IllegalArgumentException(
                    "framing: Content-Length with Transfer-Encoding (expected: one of them)");
        }
        if (codings.size() > 1 || lengths.size() > 1) {
            throw new IllegalArgumentException(
                    "framing: a repeated Content-Length or Transfer-Encoding (expected: once)");
        }
        if (!codings.isEmpty()) {
            if (!head.isHttp11()) {
                throw new IllegalArgumentException("framing: Transfer-Encoding in HTTP/1.0 (expected: Content-Length)");
            }
            if (!codings.getFirst().equalsIgnoreCase("chunked")) {
                throw new IllegalArgumentException(
                        "framing: a Transfer-Encoding other than chunked (expected: chunked)");
            }
            return withoutBody(head, new Chunked());
        }
        if (lengths.isEmpty()) {
            return new None();
        }
        String length = lengths.getFirst();
        if (length.isEmpty() || length.length() > MAX_DIGITS || !length.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(
                    "framing: a Content-Length that is not 1-" + MAX_DIGITS + " digits (expected: digits)");
        }
        return withoutBody(head, new Length(Long.parseLong(length)));
    }

    /** {@code framing}, unless it carries a body that {@code head}'s method may not have. */
    private static Framing withoutBody(RequestHead head, Framing framing) {
        boolean body = framing instanceof Chunked || (framing instanceof Length length && length.bytes() > 0);
        if (body && (head.method().equals("GET") || head.method().equals("HEAD"))) {
            throw new IllegalArgumentException("framing: a body on " + head.method() + " (expected: none)");
        }
        return framing;
    }
}
