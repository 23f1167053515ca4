package io.portcullis.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

/**
 * The daemon's pid file ({@code --pid-file}), for what signals it from outside (logrotate's
 * {@code postrotate}): written whole once the daemon is ready, by a rename over the name, so a
 * reader never sees a part; removed at a clean exit while it still names this process. A file
 * that names another running process is refused at start: two daemons would signal each other's
 * pid, and an operator's {@code kill -HUP "$(cat ...)"} would reach the wrong one.
 */
final class PidFile {
    private PidFile() {}

    /** Adds a problem when {@code file} cannot be this process's pid file. */
    static void check(Path file, List<String> problems) {
        Path folder = file.toAbsolutePath().getParent();
        if (folder == null || !Files.isDirectory(folder) || Files.isDirectory(file)) {
            problems.add("--pid-file: " + file + " (expected: a file in an existing folder)");
            return;
        }
        holder(file)
                .filter(pid -> pid != ProcessHandle.current().pid())
                .flatMap(ProcessHandle::of)
                .filter(ProcessHandle::isAlive)
                .ifPresent(other -> problems.add("--pid-file: " + file + " names pid " + other.pid()
                        + ", which is running (" + other.info().commandLine().orElse("its command line cannot be read")
                        + "): another daemon with this pid file? Stop it, or remove the file if that process is"
                        + " not one"));
    }

    /** The pid {@code file} names, when it holds one; a file that cannot be read or parsed names none. */
    static Optional<Long> holder(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 64) {
                return Optional.empty();
            }
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            return text.matches("[1-9][0-9]{0,9}") ? Optional.of(Long.parseLong(text)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Writes this process's pid to {@code file}: a new file in its folder (0644), renamed over the name. */
    static void write(Path file) throws IOException {
        Path folder = file.toAbsolutePath().getParent();
        Path fresh = Files.createTempFile(
                folder,
                ".pid-",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(fresh, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(fresh, PosixFilePermissions.fromString("rw-r--r--"));
            try {
                Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException(file + ": cannot be replaced in one step (" + e.getMessage() + ")", e);
            }
        } finally {
            Files.deleteIfExists(fresh);
        }
    }

    /** Removes {@code file} while it names this process; another's is left alone. */
    static void remove(Path file) throws IOException {
        if (holder(file).filter(pid -> pid == ProcessHandle.current().pid()).isPresent()) {
            Files.deleteIfExists(file);
        }
    }
}
