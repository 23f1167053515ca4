package io.portcullis.relay.decisionlog;

import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The decision log file: appended to, and only ever holding whole lines of ours. A write that
 * fails part-way (a full disk) is cut back to its last whole line; when that cannot be done, the
 * next write starts on a fresh line, so a cut-off line is never glued to the next one.
 *
 * <p>The file is made new ({@code O_EXCL}, 0640: its lines carry argv and cwd; the umask can only
 * narrow that), or, when something is at its name, opened without following a link and without
 * waiting on a FIFO and checked on the descriptor ({@link #refusal}): a regular file of the
 * relay's own uid, mode at most 0640, of one name. Whoever may write the log's folder (a sticky
 * /tmp, another uid) could otherwise have the relay append its lines to their file, to a file a
 * link points at (symbolic or hard), or hang on a FIFO; at start and at every reopen alike.
 */
final class LineFile implements LineOutput {
    static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r-----");
    /** {@link #MODE} as bits: what a new file is made with, and the most an existing one may have. */
    static final int MODE_BITS = 0640;

    private static final ByteBuffer NEWLINE = ByteBuffer.wrap(new byte[] {'\n'}).asReadOnlyBuffer();

    private final Path path;
    private FileChannel channel;
    private boolean midLine;

    private LineFile(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    static LineFile open(Path path) throws IOException {
        return new LineFile(path, channel(path));
    }

    /**
     * Makes or opens the file at {@code path} and checks what was opened; an error names the
     * path and the cause.
     */
    private static FileChannel channel(Path path) throws IOException {
        Posix.Appending opened;
        try {
            opened = Posix.openAppend(path.toString(), MODE_BITS);
        } catch (Posix.Failure e) {
            throw new IOException(path + ": cannot open it as the decision log: " + cause(path, e.errno(), e), e);
        }
        try {
            Optional<String> wrong = refusal(Posix.facts(opened.fd()), Posix.effectiveUid());
            if (wrong.isPresent()) {
                throw new IOException(path + ": refused as the decision log: " + wrong.get());
            }
            // The same open file again, by its descriptor's own link: what was checked is what is written.
            return FileChannel.open(
                    Path.of("/proc/self/fd/" + opened.fd()), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (Posix.Failure e) {
            throw new IOException(path + ": cannot check it as the decision log: " + e.getMessage(), e);
        } finally {
            Posix.closeQuietly(opened.fd());
        }
    }

    /**
     * Why the relay, running as this process's uid, could not use {@code path} as its decision
     * log, found without making or changing anything; empty when it could. What is at the name is
     * opened as the relay opens it (no link followed, no wait on a FIFO) and held to {@link
     * #refusal}; when nothing is there, its folder must exist and be writable.
     */
    static Optional<String> problem(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            Path folder = folder(path);
            if (!Files.isDirectory(folder)) {
                int errno = Files.exists(firstMissing(folder)) ? Posix.ENOTDIR : Posix.ENOENT;
                return Optional.of(cause(path, errno, new IOException("open")));
            }
            return Files.isWritable(folder)
                    ? Optional.empty()
                    : Optional.of(cause(path, Posix.EACCES, new IOException("open")));
        }
        int fd;
        try {
            fd = Posix.openSecret(path.toString());
        } catch (Posix.Failure e) {
            return Optional.of(cause(path, e.errno(), e));
        }
        try {
            Optional<String> wrong = refusal(Posix.facts(fd), Posix.effectiveUid());
            if (wrong.isEmpty() && !Files.isWritable(path)) {
                return Optional.of(cause(path, Posix.EACCES, new IOException("open")));
            }
            return wrong;
        } catch (Posix.Failure e) {
            return Optional.of("it cannot be checked: " + e.getMessage());
        } finally {
            Posix.closeQuietly(fd);
        }
    }

    /** The folder {@code path} is in; the root is its own. */
    private static Path folder(Path path) {
        Path absolute = path.toAbsolutePath();
        return Objects.requireNonNullElse(absolute.getParent(), absolute);
    }

    /**
     * Why {@code path} could not be opened, in words that name what to change: the folder that
     * does not exist, whose folder denies the write, the link, rather than the bare error.
     */
    static String cause(Path path, int errno, Exception error) {
        Path folder = folder(path);
        return switch (errno) {
            case Posix.ENOENT ->
                "the folder " + firstMissing(folder)
                        + " does not exist (make it, or name a file in a folder that does)";
            case Posix.EACCES ->
                Files.exists(path, LinkOption.NOFOLLOW_LINKS)
                        ? "permission denied: uid " + Integer.toUnsignedString(Posix.effectiveUid())
                                + " may not write it (" + facts(path) + ")"
                        : "permission denied: uid " + Integer.toUnsignedString(Posix.effectiveUid())
                                + " may not make a file in the folder " + folder + " (" + facts(folder) + ")";
            case Posix.ENOTDIR -> "a part of its path is not a folder: " + firstMissing(folder);
            case Posix.EISDIR -> "it is a folder (expected: a regular file)";
            case Posix.EROFS -> "its file system is read-only";
            case Posix.ELOOP ->
                Files.isSymbolicLink(path)
                        ? "it is a link, and a link at the log's name is never followed (expected: a regular file)"
                        : "its path holds too many links";
            case Posix.ENXIO -> "it is a FIFO or a socket (expected: a regular file)";
            default -> String.valueOf(error.getMessage());
        };
    }

    /** The first folder of {@code folder}'s path, from the root down, that is not a folder (or not there). */
    private static Path firstMissing(Path folder) {
        Path at = folder.getRoot();
        for (Path part : folder) {
            at = at.resolve(part);
            if (!Files.isDirectory(at)) {
                return at;
            }
        }
        return folder;
    }

    /** Its owner and mode, as far as they can be read. */
    private static String facts(Path path) {
        try {
            PosixFileAttributes attributes =
                    Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return (attributes.isDirectory() ? "a folder" : "a file") + " of uid " + Integer.toUnsignedString(uid)
                    + ", mode " + PosixFilePermissions.toString(attributes.permissions());
        } catch (IOException | RuntimeException e) {
            return "its owner and mode cannot be read";
        }
    }

    /**
     * Why an open file may not be the decision log, if it may not: anything but a regular file,
     * another uid's file ({@code ours} is the relay's effective uid), one whose mode gives more
     * than 0640 (group write, anything for others, execute, set-id or sticky bits), or one with a
     * name besides the log's (a hard link: where {@code fs.protected_hardlinks} is 0, another uid
     * may link any file of the relay's uid into a sticky folder at the log's name). Pure.
     */
    static Optional<String> refusal(Posix.FileFacts facts, int ours) {
        if (!facts.isRegularFile()) {
            return Optional.of(
                    (facts.isFifo() ? "it is a FIFO" : "it is not a regular file") + " (expected: a regular file)");
        }
        if (facts.uid() != ours) {
            return Optional.of("it is owned by uid " + Integer.toUnsignedString(facts.uid())
                    + " (expected: a file of the relay's own uid, " + Integer.toUnsignedString(ours) + ")");
        }
        if (!facts.permissionsAtMost(MODE_BITS)) {
            return Optional.of(String.format(
                    "its mode is %04o (expected: at most 0640: no group write, nothing for others; chmod 0640 it)",
                    facts.permissions()));
        }
        if (facts.links() != 1) {
            return Optional.of("it has " + facts.links() + " names (hard links) (expected: a file of one name;"
                    + " another name at the log's may be another file of the relay's uid, linked there)");
        }
        return Optional.empty();
    }

    Path path() {
        return path;
    }

    @Override
    public Written write(Lines lines) {
        long start;
        try {
            start = channel.size();
            if (midLine) {
                channel.write(NEWLINE.duplicate());
                start++;
                midLine = false;
            }
        } catch (IOException e) {
            return new Written(0, Optional.of(e));
        }
        ByteBuffer buffer = ByteBuffer.wrap(lines.bytes(), 0, lines.length());
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            return new Written(lines.count(), Optional.empty());
        } catch (IOException e) {
            int whole = lines.wholeLinesIn(buffer.position());
            if (buffer.position() > lines.endOf(whole)) {
                cutBack(start + buffer.position(), start + lines.endOf(whole));
            }
            return new Written(whole, Optional.of(e));
        }
    }

    /**
     * Removes the cut-off tail of a failed write, when the file still ends with it (another writer
     * may have appended since); else the next write begins with a line end.
     */
    private void cutBack(long end, long whole) {
        try {
            if (channel.size() == end) {
                channel.truncate(whole);
                return;
            }
        } catch (IOException e) {
            // falls through: the tail stays, and is ended before the next line
        }
        midLine = true;
    }

    @Override
    public void reopen() throws IOException {
        FileChannel fresh = channel(path);
        FileChannel old = channel;
        channel = fresh;
        midLine = false;
        old.close();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
