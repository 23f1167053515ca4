package io.portcullis.relay.decisionlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SPEC R17, issue 26 class 9: the decision log is made new, or what is at its name is checked on
 * the open descriptor: a regular file of the relay's uid, mode at most 0640. Another uid's 0666
 * file pre-placed in a sticky folder was appended to, and a FIFO there hung the start for ever.
 */
class LogFileTest {
    private static final int OURS = 0;
    private static final int NOBODY = 65534;
    private static final int REGULAR = 0100000;
    private static final int FIFO = 0010000;
    private static final int DIRECTORY = 0040000;

    @TempDir
    Path dir;

    /** file type | mode | owner | names -> refused because (empty: accepted). */
    @ParameterizedTest(name = "{0} {1} uid {2} names {3} -> {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                "regular   | 0640 | 0     | 1 | ''",
                "regular   | 0600 | 0     | 1 | ''",
                "regular   | 0400 | 0     | 1 | ''",
                "regular   | 0000 | 0     | 1 | ''",
                "regular   | 0644 | 0     | 1 | its mode is 0644",
                "regular   | 0660 | 0     | 1 | its mode is 0660",
                "regular   | 0666 | 0     | 1 | its mode is 0666",
                "regular   | 0740 | 0     | 1 | its mode is 0740",
                "regular   | 4640 | 0     | 1 | its mode is 4640",
                "regular   | 1640 | 0     | 1 | its mode is 1640",
                "regular   | 0640 | 65534 | 1 | it is owned by uid 65534",
                "regular   | 0666 | 65534 | 1 | it is owned by uid 65534",
                "regular   | 0600 | 0     | 2 | it has 2 names (hard links)",
                "regular   | 0640 | 0     | 9 | it has 9 names (hard links)",
                "regular   | 0640 | 0     | 0 | it has 0 names (hard links)",
                "regular   | 0640 | 65534 | 2 | it is owned by uid 65534",
                "fifo      | 0600 | 0     | 1 | it is a FIFO",
                "directory | 0700 | 0     | 1 | it is not a regular file",
            })
    void whatIsAtTheNameMayBeTheLog(String type, String mode, int uid, long links, String refused) {
        int kind = switch (type) {
            case "regular" -> REGULAR;
            case "fifo" -> FIFO;
            default -> DIRECTORY;
        };
        Optional<String> refusal =
                LineFile.refusal(new Posix.FileFacts(kind | Integer.parseInt(mode, 8), 0, uid, links), OURS);
        if (refused.isEmpty()) {
            assertEquals(Optional.empty(), refusal);
        } else {
            assertTrue(refusal.orElseThrow().startsWith(refused), refusal.get());
        }
    }

    @Test
    void aMissingFileIsMadeNew0640() throws IOException {
        Path log = dir.resolve("decisions.jsonl");
        LineFile.open(log).close();

        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
        assertEquals(Posix.effectiveUid(), (int) Files.getAttribute(log, "unix:uid"));
    }

    @Test
    void anOwnFileOfAtMost0640IsAppendedTo() throws IOException {
        Path log = Files.writeString(dir.resolve("decisions.jsonl"), "{\"before\":1}\n");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-------"));
        try (LineFile file = LineFile.open(log)) {
            Lines lines = new Lines();
            lines.add("{\"after\":2}\n".getBytes(StandardCharsets.UTF_8));
            file.write(lines);
        }
        assertEquals("{\"before\":1}\n{\"after\":2}\n", Files.readString(log));
    }

    /** The class of issue 26: another uid pre-places the log file, 0666, in a sticky folder. */
    @Test
    void anotherUidsFilePrePlacedInAStickyFolderIsRefusedAndLeftAlone() throws IOException {
        Path sticky = Files.createDirectory(dir.resolve("tmp"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path log = Files.writeString(sticky.resolve("decisions.jsonl"), "theirs\n");
        Files.setAttribute(log, "unix:uid", NOBODY);
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-rw-rw-"));

        IOException refused = assertThrows(IOException.class, () -> LineFile.open(log));

        assertTrue(refused.getMessage().startsWith(log + ": refused as the decision log: "), refused.getMessage());
        assertTrue(refused.getMessage().contains("owned by uid 65534"), refused.getMessage());
        assertEquals("theirs\n", Files.readString(log));
    }

    @Test
    void anOwnFileThatOthersMayReadOrWriteIsRefused() throws IOException {
        Path log = Files.writeString(dir.resolve("decisions.jsonl"), "");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-rw-rw-"));

        IOException refused = assertThrows(IOException.class, () -> LineFile.open(log));

        assertTrue(refused.getMessage().contains("its mode is 0666"), refused.getMessage());
    }

    @Test
    void aFifoWithNoReaderIsRefusedAtOnce() throws Exception {
        Path fifo = fifo();

        IOException refused = assertTimeoutPreemptively(
                Duration.ofSeconds(5), () -> assertThrows(IOException.class, () -> LineFile.open(fifo)));

        assertTrue(refused.getMessage().contains("it is a FIFO or a socket"), refused.getMessage());
    }

    @Test
    void aFifoWithAReaderIsRefusedAtOnce() throws Exception {
        Path fifo = fifo();
        // Linux opens a FIFO for reading and writing at once, so it has a reader while this is open.
        try (FileChannel reader = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            IOException refused = assertTimeoutPreemptively(
                    Duration.ofSeconds(5), () -> assertThrows(IOException.class, () -> LineFile.open(fifo)));

            assertTrue(refused.getMessage().contains("it is a FIFO (expected: a regular file)"), refused.getMessage());
            assertTrue(reader.isOpen());
        }
    }

    @Test
    void aLinkIsRefusedAndItsTargetLeftAlone() throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "keep\n");
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        Path log = Files.createSymbolicLink(dir.resolve("decisions.jsonl"), victim);

        IOException refused = assertThrows(IOException.class, () -> LineFile.open(log));

        assertTrue(refused.getMessage().contains("it is a link"), refused.getMessage());
        assertEquals("keep\n", Files.readString(victim));
    }

    /**
     * Where {@code fs.protected_hardlinks} is 0, another uid may hard-link any file of the relay's
     * uid (0600, so every other check passes) into a sticky folder at the log's name, and the relay
     * appended its lines to it (an {@code authorized_keys}, say). Root links regardless of the
     * setting, so the test makes the link itself.
     */
    @Test
    void aHardLinkToAnOwnFileIsRefusedAndItsFileLeftAlone() throws IOException {
        Path victim = Files.writeString(dir.resolve("authorized_keys"), "keep\n");
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        Path sticky = Files.createDirectory(dir.resolve("tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path log = Files.createLink(sticky.resolve("decisions.jsonl"), victim);

        IOException refused = assertThrows(IOException.class, () -> LineFile.open(log));

        assertTrue(refused.getMessage().startsWith(log + ": refused as the decision log: "), refused.getMessage());
        assertTrue(refused.getMessage().contains("it has 2 names (hard links)"), refused.getMessage());
        assertEquals("keep\n", Files.readString(victim));
    }

    /**
     * Issue 25: a log in a folder that does not exist was reported as a link. Each cause is said
     * as itself, naming what to change.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "missing/deeper/decisions.jsonl | the folder {dir}/missing does not exist",
                "file/decisions.jsonl           | a part of its path is not a folder: {dir}/file",
                "folder                         | it is a folder (expected: a regular file)",
                "link                           | it is a link, and a link at the log's name is never followed",
            })
    void theCauseOfALogThatCannotBeOpenedIsSaidAsItIs(String name, String cause) throws IOException {
        Files.writeString(dir.resolve("file"), "");
        Files.createDirectory(dir.resolve("folder"));
        Files.createSymbolicLink(dir.resolve("link"), dir.resolve("elsewhere"));

        IOException refused = assertThrows(IOException.class, () -> LineFile.open(dir.resolve(name)));

        assertTrue(refused.getMessage().contains(cause.replace("{dir}", dir.toString())), refused.getMessage());
    }

    /** Issue 25: {@code check --host} finds what the relay would refuse, making and changing nothing. */
    @Test
    void aLogIsCheckedWithoutMakingOrChangingAnything() throws IOException {
        Path made = dir.resolve("decisions.jsonl");
        assertEquals(Optional.empty(), JsonLineSink.problem(made));
        assertFalse(Files.exists(made), "the check made the file");

        assertTrue(JsonLineSink.problem(dir.resolve("none/decisions.jsonl"))
                .orElseThrow()
                .startsWith("the folder " + dir.resolve("none") + " does not exist"));

        Files.writeString(made, "{}\n");
        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rw-r-----"));
        assertEquals(Optional.empty(), JsonLineSink.problem(made));
        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertTrue(JsonLineSink.problem(made).orElseThrow().startsWith("its mode is 0666"));
        assertEquals("rw-rw-rw-", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));

        Files.createSymbolicLink(dir.resolve("link"), made);
        assertTrue(JsonLineSink.problem(dir.resolve("link")).orElseThrow().startsWith("it is a link"));
    }

    @Test
    void aFolderThatDeniesTheWriteIsNamedWithItsOwnerAndMode() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("logs"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));

        String cause = LineFile.cause(folder.resolve("decisions.jsonl"), Posix.EACCES, new IOException("open"));

        assertEquals(
                "permission denied: uid " + Posix.effectiveUid() + " may not make a file in the folder " + folder
                        + " (a folder of uid " + Posix.effectiveUid() + ", mode rwxr-xr-x)",
                cause);
    }

    private Path fifo() throws Exception {
        Path fifo = dir.resolve("decisions.jsonl");
        Process mkfifo = new ProcessBuilder("mkfifo", "-m", "0600", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, mkfifo.exitValue());
        return fifo;
    }
}
