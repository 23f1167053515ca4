package io.portcullis.relay.door;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DoorTokenTest {
    @TempDir
    Path dir;

    private DoorToken mint(Path file) throws IOException {
        return DoorToken.mint(file, OptionalInt.empty(), new SecureRandom());
    }

    @Test
    void theTokenIs64HexDigitsInANewFileOfMode0400AndOnlyItsHashIsKept() throws Exception {
        DoorToken token = mint(dir.resolve("token"));

        String text = Files.readString(dir.resolve("token"));
        assertTrue(text.matches("[0-9a-f]{64}"), text);
        assertEquals("r--------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("token"))));
        assertTrue(token.matches(text));
        assertFalse(token.matches(text.toUpperCase()));
        assertFalse(token.matches(text + "\n"));
        assertFalse(token.toString().contains(text));
        token.remove();
        assertFalse(Files.exists(dir.resolve("token")));
    }

    @Test
    void twoMintsDiffer() throws Exception {
        mint(dir.resolve("a"));
        mint(dir.resolve("b"));

        assertFalse(Files.readString(dir.resolve("a")).equals(Files.readString(dir.resolve("b"))));
    }

    /** Regression (issue 9, class 16): a relay killed with SIGKILL left its token; the next start failed. */
    @Test
    void aStaleTokenOfAKilledRelayIsReplacedSoTheSameCommandStartsAgain() throws Exception {
        DoorToken first = mint(dir.resolve("token"));
        String before = Files.readString(dir.resolve("token"));

        DoorToken second = mint(dir.resolve("token"));

        String after = Files.readString(dir.resolve("token"));
        assertFalse(after.equals(before), "a new token");
        assertTrue(second.matches(after));
        assertFalse(first.matches(after));
    }

    @Test
    void aFileThatOnlyLooksLikeATokenInPartStays() throws Exception {
        Path wrongMode = Files.writeString(dir.resolve("mode"), "a".repeat(64));
        Path notHex = Files.writeString(dir.resolve("text"), "z".repeat(64));
        Files.setPosixFilePermissions(notHex, PosixFilePermissions.fromString("r--------"));

        assertThrows(IOException.class, () -> mint(wrongMode));
        assertThrows(IOException.class, () -> mint(notHex));
        assertEquals("a".repeat(64), Files.readString(wrongMode));
        assertEquals("z".repeat(64), Files.readString(notHex));
    }

    @Test
    void anExistingFileOrSymbolicLinkIsNeverWritten() throws Exception {
        Files.writeString(dir.resolve("existing"), "keep");
        Path target = Files.writeString(dir.resolve("target"), "keep");
        Files.createSymbolicLink(dir.resolve("link"), target);
        Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));

        assertThrows(IOException.class, () -> mint(dir.resolve("existing")));
        assertThrows(IOException.class, () -> mint(dir.resolve("link")));
        assertThrows(IOException.class, () -> mint(dir.resolve("dangling")));

        assertEquals("keep", Files.readString(dir.resolve("existing")));
        assertEquals("keep", Files.readString(target));
        assertFalse(Files.exists(dir.resolve("nowhere")));
    }

    @ParameterizedTest(name = "{0} -> refused")
    @ValueSource(strings = {"rwxrwx---", "rwx---rwx", "rwxrwxrwx", "rwx-w----"})
    void aDirectoryOthersCanWriteIsRefused(String modes) throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString(modes));

        IOException e = assertThrows(IOException.class, () -> mint(shared.resolve("token")));

        assertTrue(e.getMessage().contains("group and others cannot write"), e.getMessage());
        assertFalse(Files.exists(shared.resolve("token")));
    }

    @Test
    void aMissingDirectoryIsRefused() {
        IOException e = assertThrows(IOException.class, () -> mint(dir.resolve("missing/token")));

        assertTrue(e.getMessage().contains("existing directory"), e.getMessage());
    }

    @ParameterizedTest(name = "directory of uid {0}, relay uid {1} -> refused")
    @CsvSource({"65534, 0", "1000, 0", "65534, 1000"})
    void aDirectoryOfAnotherUidIsRefusedEvenWhenOnlyItsOwnerCanWrite(int directoryUid, int relayUid) throws Exception {
        Path foreign = Files.createDirectory(dir.resolve("foreign"));
        Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(foreign, "unix:uid", directoryUid);

        IOException e = assertThrows(
                IOException.class,
                () -> DoorToken.mint(foreign.resolve("token"), OptionalInt.empty(), new SecureRandom(), relayUid));

        assertTrue(
                e.getMessage()
                        .contains("owned by uid " + directoryUid + " (expected: owned by the relay's uid " + relayUid
                                + " or root)"),
                e.getMessage());
        assertFalse(Files.exists(foreign.resolve("token")));
    }

    @ParameterizedTest(name = "directory of uid {0}, relay uid {1} -> minted")
    @CsvSource({"0, 0", "0, 1000", "1000, 1000"})
    void aDirectoryOfTheRelaysUidOrRootIsAccepted(int directoryUid, int relayUid) throws Exception {
        Path own = Files.createDirectory(dir.resolve("own"));
        Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(own, "unix:uid", directoryUid);

        DoorToken.mint(own.resolve("token"), OptionalInt.empty(), new SecureRandom(), relayUid);

        assertTrue(Files.exists(own.resolve("token")));
    }
}
