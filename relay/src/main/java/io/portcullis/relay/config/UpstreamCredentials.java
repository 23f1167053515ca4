package io.portcullis.relay.config;

import io.portcullis.wire.Posix;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

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
     * <p>The file is opened without following a link and without waiting on a FIFO, and the open
     * file itself must be regular, not readable by every user, at most {@value #MAX_BYTES} bytes
     * and of no other name: what is checked is what is read, so someone who may write the file's
     * folder can neither have the relay read another file through a link, symbolic or hard (a
     * second name of another file of the relay's uid, whose first line would leave in {@code
     * Proxy-Authorization}), nor swap one in after the check, nor hold the relay's load on a FIFO.
     * A file renamed over while it is read has no name left and is still the file checked and read.
     *
     * @throws IllegalArgumentException with an "expected" sentence when the file cannot be read or is wrong
     */
    static String read(Path file) {
        return read(file, () -> {});
    }

    /** As {@link #read(Path)}; {@code afterOpen} runs between the open and the checks (a test's seam). */
    static String read(Path file, Runnable afterOpen) {
        byte[] bytes;
        int fd;
        try {
            fd = Posix.openSecret(file.toString());
        } catch (Posix.Failure e) {
            throw unreadable(e);
        }
        try {
            afterOpen.run();
            Posix.FileFacts facts = Posix.facts(fd);
            if (facts.othersMayRead()) {
                throw new IllegalArgumentException(
                        "a file that only its owner and group can read (chmod 0600 or 0640)");
            }
            if (!facts.isRegularFile() || facts.size() > MAX_BYTES) {
                throw tooLarge();
            }
            if (facts.links() > 1) {
                throw new IllegalArgumentException(
                        "a file of one name (it has " + facts.links() + " hard links: copy it rather than link it)");
            }
            bytes = Posix.readAtMost(fd, MAX_BYTES + 1);
        } catch (Posix.Failure e) {
            throw unreadable(e);
        } finally {
            Posix.closeQuietly(fd);
        }
        if (bytes.length > MAX_BYTES) {
            throw tooLarge();
        }
        return "Basic " + Base64.getEncoder().encodeToString(parse(bytes).getBytes(StandardCharsets.UTF_8));
    }

    private static IllegalArgumentException unreadable(Posix.Failure e) {
        return new IllegalArgumentException("a readable file of one line user:password (" + e.getMessage() + ")");
    }

    private static IllegalArgumentException tooLarge() {
        return new IllegalArgumentException(
                "a regular file of one line user:password, at most " + MAX_BYTES + " bytes");
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
