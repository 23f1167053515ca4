package io.portcullis.relay.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
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
     * <p>The file is opened without following a link, and read only if the name still names the
     * same file (device and inode), still regular and still not readable by every user, both before
     * and after the read: someone who may write the file's folder cannot have the relay read
     * another file through a link, nor swap a file in between the check and the read unnoticed.
     *
     * @throws IllegalArgumentException with an "expected" sentence when the file cannot be read or is wrong
     */
    static String read(Path file) {
        return read(file, () -> {});
    }

    /** As {@link #read(Path)}; {@code afterCheck} runs between the first check and the open (a test's seam). */
    static String read(Path file, Runnable afterCheck) {
        byte[] bytes;
        try {
            Object before = checked(file);
            afterCheck.run();
            try (SeekableByteChannel channel =
                    Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                bytes = readAtMost(channel);
            }
            if (!before.equals(checked(file))) {
                throw new IllegalArgumentException("a file that stays in place while it is read (it was replaced)");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("a readable file of one line user:password (" + e.getMessage() + ")");
        }
        return "Basic " + Base64.getEncoder().encodeToString(parse(bytes).getBytes(StandardCharsets.UTF_8));
    }

    /** The file's identity (device and inode), once it is known to be a regular file not every user may read. */
    private static Object checked(Path file) throws IOException {
        PosixFileAttributes attributes =
                Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.permissions().contains(PosixFilePermission.OTHERS_READ)) {
            throw new IllegalArgumentException("a file that only its owner and group can read (chmod 0600 or 0640)");
        }
        if (!attributes.isRegularFile() || attributes.size() > MAX_BYTES || attributes.fileKey() == null) {
            throw new IllegalArgumentException(
                    "a regular file of one line user:password, at most " + MAX_BYTES + " bytes");
        }
        return attributes.fileKey();
    }

    /** Up to {@link #MAX_BYTES} bytes of {@code channel}; more is an error. */
    private static byte[] readAtMost(SeekableByteChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(MAX_BYTES + 1);
        while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
            // reads until the end or one byte past the limit
        }
        if (!buffer.hasRemaining()) {
            throw new IllegalArgumentException(
                    "a regular file of one line user:password, at most " + MAX_BYTES + " bytes");
        }
        return Arrays.copyOf(buffer.array(), buffer.position());
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
