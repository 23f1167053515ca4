package io.portcullis.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The service's state directory ({@code StateDirectory=}, {@code $STATE_DIRECTORY}): one {@link
 * SpawnState} per kept spawn, {@code <id>.json}, mode 0600. A file is written whole or not at all:
 * into a new temporary file, flushed to the disk, then renamed over the old one and the directory
 * flushed, so a crash at any point leaves the old file or the new one, never a part. Temporary
 * files a crash left ({@code .<id>.json.tmp}) are removed when the directory is read.
 */
final class StateDirectory {
    private static final String SUFFIX = ".json";
    private static final String TEMPORARY = ".tmp";

    private final Path directory;

    StateDirectory(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    Path path() {
        return directory;
    }

    /** One file as it was read: its spawn id and its bytes. */
    record Entry(String id, Path file, byte[] bytes) {}

    /** Writes {@code id}'s state whole, replacing what was there. */
    void write(String id, SpawnState state) throws IOException {
        Path file = file(id);
        Path temporary = directory.resolve("." + id + SUFFIX + TEMPORARY);
        Files.deleteIfExists(temporary);
        try (FileChannel out = FileChannel.open(
                temporary,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer bytes = ByteBuffer.wrap(state.toJson());
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        flushDirectory();
    }

    /** Removes {@code id}'s state, if it has one. */
    void remove(String id) throws IOException {
        if (Files.deleteIfExists(file(id))) {
            flushDirectory();
        }
    }

    /** Every state file, in the order of their ids; temporary files a crash left are removed. */
    List<Entry> read() throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") && name.endsWith(SUFFIX + TEMPORARY)) {
                    Files.deleteIfExists(file);
                } else if (name.endsWith(SUFFIX)
                        && !name.startsWith(".")
                        && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    entries.add(new Entry(
                            name.substring(0, name.length() - SUFFIX.length()), file, Files.readAllBytes(file)));
                }
            }
        }
        entries.sort((a, b) -> a.id().compareTo(b.id()));
        return entries;
    }

    private Path file(String id) {
        if (id.isEmpty() || id.startsWith(".") || id.indexOf('/') >= 0) {
            throw new IllegalArgumentException("id: " + id + " (expected: a spawn id)");
        }
        return directory.resolve(id + SUFFIX);
    }

    /** Makes a rename or a removal in the directory last across a crash of the machine. */
    private void flushDirectory() throws IOException {
        try (FileChannel self = FileChannel.open(directory, StandardOpenOption.READ)) {
            self.force(true);
        }
    }
}
