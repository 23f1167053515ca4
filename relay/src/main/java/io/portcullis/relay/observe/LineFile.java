package io.portcullis.relay.observe;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The decision log file: appended to, created 0640 (its lines carry argv and cwd; the umask can
 * only narrow that), and only ever holding whole lines of ours. A write that fails part-way (a full
 * disk) is cut back to its last whole line; when that cannot be done, the next write starts on a
 * fresh line, so a cut-off line is never glued to the next one.
 */
final class LineFile implements LineOutput {
    static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r-----");
    private static final FileAttribute<Set<PosixFilePermission>> CREATE_MODE =
            PosixFilePermissions.asFileAttribute(MODE);
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
     * Opens (or creates, 0640) the file at {@code path} without following a link there: after a
     * rotation, whoever may write the log's directory could otherwise point the next line at any
     * file the relay may write. A link, or anything but a regular file, is an error.
     */
    private static FileChannel channel(Path path) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(
                    path,
                    Set.of(
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND,
                            StandardOpenOption.WRITE,
                            LinkOption.NOFOLLOW_LINKS),
                    CREATE_MODE);
        } catch (IOException e) {
            throw new IOException(
                    path + ": cannot open it as the decision log (a link is never followed): " + e.getMessage(), e);
        }
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            channel.close();
            throw new IOException(path + ": not a regular file (expected: the decision log)");
        }
        return channel;
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
            return new Written(0, e);
        }
        ByteBuffer buffer = ByteBuffer.wrap(lines.bytes(), 0, lines.length());
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            return new Written(lines.count(), null);
        } catch (IOException e) {
            int whole = lines.wholeLinesIn(buffer.position());
            if (buffer.position() > lines.endOf(whole)) {
                cutBack(start + buffer.position(), start + lines.endOf(whole));
            }
            return new Written(whole, e);
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
