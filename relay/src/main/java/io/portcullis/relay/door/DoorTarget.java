package io.portcullis.relay.door;

/**
 * The request-target rule of a door (SPEC R13), applied to the raw bytes before anything decodes
 * or normalises them, so that no spelling can reach another path of the gateway than the one the
 * route names: exactly one leading slash, no {@code //}, no {@code .} or {@code ..} segment, and
 * only RFC 3986 path characters ({@code unreserved}, {@code sub-delims}, {@code :}, {@code @},
 * {@code /}): so no {@code %}, {@code ?}, {@code #}, backslash, space or non-ASCII byte. Pure.
 */
final class DoorTarget {
    /** Longer targets are refused before they are looked at. */
    static final int MAX_LENGTH = 1024;

    private static final String PATH_CHARS = "-._~!$&'()*+,;=:@/";

    private DoorTarget() {}

    /** True when {@code target} may be compared with the door's routes. */
    static boolean isClean(String target) {
        if (target.isEmpty() || target.length() > MAX_LENGTH || target.charAt(0) != '/' || target.contains("//")) {
            return false;
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            boolean alphanumeric = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!alphanumeric && PATH_CHARS.indexOf(c) < 0) {
                return false;
            }
        }
        for (String segment : target.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return false;
            }
        }
        return true;
    }
}
