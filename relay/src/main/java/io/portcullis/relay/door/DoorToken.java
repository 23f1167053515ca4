package io.portcullis.relay.door;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A spawn's door token (SPEC R13): 32 random bytes, written once as 64 lowercase hex digits (no
 * newline) to a new file of mode 0400, of which the relay keeps only the SHA-256. The file is
 * created new (never over an existing file or through a symbolic link, but for a stale token of a
 * killed relay, which is removed first) in a directory owned by the
 * relay's uid or root that group and others cannot write, so that no other user can swap, remove
 * or pre-create the file; it is removed when the spawn closes. No method returns or prints the token.
 */
public final class DoorToken {
    static final int BYTES = 32;

    private final Path file;
    private final byte[] sha256;

    private DoorToken(Path file, byte[] sha256) {
        this.file = file;
        this.sha256 = sha256;
    }

    /**
     * Mints a token and writes it to {@code file}.
     *
     * @param owner the uid to own the file (the spawn's peer uid), when present
     * @throws IOException when the directory is missing, owned by another uid than the relay's or
     *     root, or writable by group or others, the file exists, or it cannot be written; the
     *     message names the file, never the token
     */
    public static DoorToken mint(Path file, OptionalInt owner, SecureRandom random) throws IOException {
        return mint(file, owner, random, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    /**
     * As {@link #mint(Path, OptionalInt, SecureRandom)}, for a relay running as {@code relayUid}.
     */
    static DoorToken mint(Path file, OptionalInt owner, SecureRandom random, int relayUid) throws IOException {
        Objects.requireNonNull(file, "file");
        checkDirectory(file, relayUid);
        byte[] token = new byte[BYTES];
        random.nextBytes(token);
        byte[] text = HexFormat.of().formatHex(token).getBytes(StandardCharsets.US_ASCII);
        removeIfStale(file);
        try (SeekableByteChannel out = Files.newByteChannel(
                file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r--------")))) {
            ByteBuffer buffer = ByteBuffer.wrap(text);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        } catch (IOException e) {
            throw new IOException(
                    "door.tokenFile: " + file + " cannot be created new: "
                            + e.getClass().getSimpleName(),
                    e);
        }
        try {
            if (owner.isPresent()) {
                Files.setAttribute(file, "unix:uid", owner.getAsInt(), LinkOption.NOFOLLOW_LINKS);
            }
            return new DoorToken(file, sha256(text));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        } finally {
            Arrays.fill(token, (byte) 0);
            Arrays.fill(text, (byte) 0);
        }
    }

    /**
     * The token that {@code file} holds already, written by the relay that served the spawn before
     * this one (SPEC R44): the spawn's program read it there, so it must stay as it is. The file must
     * be a regular file (not a link) of mode 0400 owned by {@code owner} (or the relay's uid when
     * absent) holding exactly 64 lowercase hex digits, in a directory checked as {@link #mint}
     * checks it. The file is left in place; the message of a failure names it, never the token.
     */
    public static DoorToken adopt(Path file, OptionalInt owner) throws IOException {
        Objects.requireNonNull(file, "file");
        int relayUid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        checkDirectory(file, relayUid);
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new IOException("door.tokenFile: " + file + " is gone (expected: the token the spawn was given)", e);
        }
        int uid = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int expected = owner.orElse(relayUid);
        String mode = PosixFilePermissions.toString(attributes.permissions());
        if (!attributes.isRegularFile()
                || attributes.size() != 2 * BYTES
                || !mode.equals("r--------")
                || uid != expected) {
            throw new IOException(
                    "door.tokenFile: " + file + " is " + (attributes.isRegularFile() ? "a file" : "not a file")
                            + " of " + attributes.size() + " bytes, mode " + mode + ", uid " + uid
                            + " (expected: a token file of "
                            + 2 * BYTES + " bytes, mode r--------, uid " + expected + ")");
        }
        byte[] text = new byte[2 * BYTES + 1];
        try (SeekableByteChannel in =
                Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.wrap(text);
            while (buffer.hasRemaining() && in.read(buffer) >= 0) {
                // read to the end, or one byte past a token
            }
            int length = buffer.position();
            byte[] token = Arrays.copyOf(text, length);
            try {
                if (length != 2 * BYTES || !lowercaseHex(token)) {
                    throw new IOException("door.tokenFile: " + file + " does not hold a token (expected: " + 2 * BYTES
                            + " lowercase hex digits)");
                }
                return new DoorToken(file, sha256(token));
            } finally {
                Arrays.fill(token, (byte) 0);
            }
        } finally {
            Arrays.fill(text, (byte) 0);
        }
    }

    private static boolean lowercaseHex(byte[] text) {
        for (byte c : text) {
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A token file that a relay killed with SIGKILL left behind is removed, so the same command can
     * start again: a regular file (not a link) of mode 0400 holding exactly 64 lowercase hex digits,
     * in a directory that only the relay or root can write. Anything else there stays, and minting
     * then fails: the relay never replaces a file that is not one of its tokens.
     */
    private static void removeIfStale(Path file) throws IOException {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        if (!attributes.isRegularFile()
                || attributes.size() != 2 * BYTES
                || !PosixFilePermissions.toString(attributes.permissions()).equals("r--------")) {
            return;
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        if (text.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            Files.delete(file);
        }
    }

    /** The token's directory exists, is the relay's or root's, and only its owner may write in it. */
    private static void checkDirectory(Path file, int relayUid) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        if (directory == null || !Files.isDirectory(directory)) {
            throw new IOException("door.tokenFile: " + file + " (expected: in an existing directory)");
        }
        int uid = (Integer) Files.getAttribute(directory, "unix:uid");
        if (uid != relayUid && uid != 0) {
            throw new IOException("door.tokenFile: " + file + " is in a directory owned by uid " + uid
                    + " (expected: owned by the relay's uid " + relayUid + " or root)");
        }
        Set<PosixFilePermission> modes =
                Files.readAttributes(directory, PosixFileAttributes.class).permissions();
        if (modes.contains(PosixFilePermission.GROUP_WRITE) || modes.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(
                    "door.tokenFile: " + file + " (expected: in a directory that group and others cannot write, not "
                            + PosixFilePermissions.toString(modes) + ")");
        }
    }

    /** Where the token was written. */
    public Path file() {
        return file;
    }

    /** Whether {@code value} (a header value, as ISO-8859-1 text) is the token; constant time. */
    boolean matches(String value) {
        return MessageDigest.isEqual(sha256(value.getBytes(StandardCharsets.ISO_8859_1)), sha256);
    }

    /** Removes the token file. */
    public void remove() throws IOException {
        Files.deleteIfExists(file);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256: missing (expected: in every JDK)", e);
        }
    }

    @Override
    public String toString() {
        return "DoorToken[" + file + "]";
    }
}
