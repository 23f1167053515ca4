package io.portcullis.relay.policy;

import java.util.Locale;

/**
 * An absolute-form {@code http://} request target (RFC 9112 section 3.2.2), read strictly: an
 * authority of {@code host[:port]} without userinfo, then a path and query of RFC 3986
 * characters with well-formed escapes, and no fragment. Pure.
 *
 * @param target the canonical {@code host:port} (port 80 when absent)
 * @param authority the authority with its port made explicit, as the judge takes it
 * @param origin the origin-form to send upstream: the path ({@code /} when empty) and query
 */
public record AbsoluteUri(Target target, String authority, String origin) {
    private static final String SCHEME = "http://";
    private static final String PATH_CHARS = "-._~!$&'()*+,;=:@/";

    /**
     * @throws IllegalArgumentException when {@code text} is not such a target
     */
    public static AbsoluteUri parse(String text) {
        if (!text.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            throw new IllegalArgumentException("target: not http:// (expected: an absolute http URI)");
        }
        int end = SCHEME.length();
        while (end < text.length() && text.charAt(end) != '/' && text.charAt(end) != '?') {
            end++;
        }
        String authority = authority(text.substring(SCHEME.length(), end));
        Target target = Target.parse(authority);
        String rest = text.substring(end);
        checkPathAndQuery(rest);
        String origin = rest.isEmpty() || rest.charAt(0) == '?' ? "/" + rest : rest;
        return new AbsoluteUri(target, authority, origin);
    }

    /** {@code host:port} from an authority or Host field; port 80 when absent. */
    public static String authority(String text) {
        if (text.isEmpty() || text.indexOf('@') >= 0) {
            throw new IllegalArgumentException("authority: empty or with userinfo (expected: host[:port])");
        }
        int close = text.lastIndexOf(']');
        int colon = text.lastIndexOf(':');
        if (colon <= close) {
            return text + ":80";
        }
        if (colon == text.length() - 1) {
            throw new IllegalArgumentException("authority: an empty port (expected: host[:port])");
        }
        return text;
    }

    private static void checkPathAndQuery(String rest) {
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c == '%') {
                if (i + 2 >= rest.length()
                        || Character.digit(rest.charAt(i + 1), 16) < 0
                        || Character.digit(rest.charAt(i + 2), 16) < 0
                        || rest.charAt(i + 1) > 'f'
                        || rest.charAt(i + 2) > 'f') {
                    throw new IllegalArgumentException("target: a malformed escape (expected: %XX)");
                }
                i += 2;
            } else if (!(c < 0x80 && (Character.isLetterOrDigit(c) || PATH_CHARS.indexOf(c) >= 0 || c == '?'))) {
                throw new IllegalArgumentException(
                        "target: a byte outside RFC 3986 path and query characters (expected: none)");
            }
        }
    }

    /** The Host field to send: the canonical host, with the port unless it is 80. */
    public String hostField() {
        String shown = target.toString();
        return target.port() == 80 ? shown.substring(0, shown.length() - 3) : shown;
    }

    @Override
    public String toString() {
        return "http://" + target.toString().toLowerCase(Locale.ROOT) + origin;
    }
}
