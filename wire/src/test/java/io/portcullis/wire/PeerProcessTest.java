package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A peer's namespaces, read through its pidfd, are the ones {@code /proc} names for it. */
@Timeout(30)
class PeerProcessTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(PeerProcess.Type.class)
    void aPeerInThisProcessHasThisProcesssNamespaces(PeerProcess.Type type) throws IOException {
        Path directory = Files.createTempDirectory("peer-process-");
        Path path = directory.resolve("s.sock");
        int server = Posix.listenUnix(path.toString(), 1);
        int client = Posix.connectUnix(path.toString(), 5000);
        int connection = Posix.accept(server);
        try (PeerProcess peer =
                PeerProcess.of(connection, ProcessHandle.current().pid())) {
            PeerProcess.Namespace namespace = peer.namespace(type);

            assertEquals(PeerProcess.Namespace.own(type), namespace);
            assertTrue(namespace.toString().matches(type.file() + ":\\[[0-9]+]"), namespace.toString());
        } finally {
            Posix.closeQuietly(connection);
            Posix.closeQuietly(client);
            Posix.closeQuietly(server);
            Files.deleteIfExists(path);
            Files.deleteIfExists(directory);
        }
    }

    /** SO_PEERCRED gives pid 0 for a process outside this pid namespace and those under it. */
    @Test
    void aPeerThatIsNotSeenFromThisPidNamespaceCannotBeRead() {
        IOException failed = assertThrows(IOException.class, () -> PeerProcess.of(-1, 0));

        assertTrue(failed.getMessage().startsWith("pid 0: the peer's process is not seen"), failed.getMessage());
    }
}
