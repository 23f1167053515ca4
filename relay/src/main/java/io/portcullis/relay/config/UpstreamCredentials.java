package io.portcullis.relay.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Base64;
import java.util.Set;

/**
 * The upstream proxy's Basic credentials (SPEC R25, RFC 7617), read from a file of one line
 * {@code user:password}. The file must not be readable by every user, since it holds a secret
 * that the decision log and every message leave out.
 */
final class UpstreamCredentials {
    private static final int MAX_BYTES = 4096;

    private UpstreamCredentials() {}

    /**
     * The {@code Proxy-Authorization} value for the credentials in {@code file}.
     *
     * @throws IllegalArgumentException with an "expected" sentence when the file cannot be read or is wrong
     */
    static String read(Path file) {
        byte[] bytes;
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            if (mode.contains(PosixFilePermission.OTHERS_READ)) {
                throw new IllegalArgumentException(
                        "a file that only its owner and group can read (chmod 0600 or 0640)");
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > MAX_BYTES) {
                throw new IllegalArgumentException(
                        "a regular file of one line user:password, at most " + MAX_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("a readable file of one line user:password (" + e.getMessage() + ")");
        }
        return "Basic " + Base64.getEncoder().encodeToString(parse(bytes).getBytes(StandardCharsets.UTF_8));
    }

    /** The {@code user:password} in {@code bytes}: one line of UTF-8, its end of line optional. */
    static String parse(byte[] bytes) {
        String text;
        try {
            text = JsonText.utf8(bytes);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("one line user:password in UTF-8");
        }
        if (text.endsWith("\r\n")) {
            text = text.substring(0, text.length() - 2);
        } else if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        int colon = text.indexOf(':');
        boolean control = text.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
        if (colon < 1 || control) {
            throw new IllegalArgumentException("one line user:password, the user not empty and without ':'");
        }
        return text;
    }
}
