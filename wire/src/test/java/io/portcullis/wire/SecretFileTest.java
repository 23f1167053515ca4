package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Opening a secret file, and what statx of its descriptor says against what the JDK says of the name. */
class SecretFileTest {
    @TempDir
    Path dir;

    /** permissions | size | bytes read with a limit of 10. */
    @ParameterizedTest(name = "{0}, {1} bytes")
    @CsvSource({
        "rw-------, 0, 0",
        "rw-r-----, 5, 5",
        "rw-r--r--, 10, 10",
        "r--------, 11, 10",
        "rw----r--, 70000, 10",
    })
    void theFactsOfTheOpenFileAreThoseOfTheFileAndTheReadStopsAtItsLimit(String permissions, int size, int read)
            throws Exception {
        Path file = dir.resolve("secret");
        byte[] content = "x".repeat(size).getBytes(StandardCharsets.US_ASCII);
        Files.write(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        int fd = Posix.openSecret(file.toString());
        try {
            Posix.FileFacts facts = Posix.facts(fd);
            assertEquals(size, facts.size());
            assertTrue(facts.isRegularFile());
            assertEquals(permissions.charAt(6) == 'r', facts.othersMayRead());
            assertEquals(Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS), facts.mode(), "mode");
            assertEquals(1, facts.links(), "names");
            assertArrayEquals(Arrays.copyOf(content, read), Posix.readAtMost(fd, 10));
        } finally {
            Posix.close(fd);
        }
    }

    @Test
    void theFactsCountTheFilesNames() throws Exception {
        Path file = Files.writeString(dir.resolve("secret"), "secret");
        Files.createLink(dir.resolve("second"), file);
        int fd = Posix.openSecret(file.toString());
        try {
            assertEquals(2, Posix.facts(fd).links());
            Files.delete(file);
            Files.delete(dir.resolve("second"));
            assertEquals(0, Posix.facts(fd).links(), "open, with no name left");
        } finally {
            Posix.close(fd);
        }
    }

    @Test
    void aLinkIsNotFollowedAndAFolderIsNoRegularFile() throws Exception {
        Path target = Files.writeString(dir.resolve("target"), "secret");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        Posix.Failure e = assertThrows(Posix.Failure.class, () -> Posix.openSecret(link.toString()));
        assertEquals("open: Too many levels of symbolic links", e.getMessage());

        int fd = Posix.openSecret(dir.toString());
        try {
            assertFalse(Posix.facts(fd).isRegularFile());
        } finally {
            Posix.close(fd);
        }
    }
}
