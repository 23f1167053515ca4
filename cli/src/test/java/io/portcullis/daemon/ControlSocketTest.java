package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlSocketTest {
    @Test
    void aStaleSocketIsReplacedAndALiveOneOrAFileIsAnError(@TempDir Path dir) throws IOException {
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale));
        }
        Path live = dir.resolve("live.sock");
        Path file = Files.writeString(dir.resolve("file"), "x");

        ControlSocket.clear(stale);

        assertFalse(Files.exists(stale));
        try (ServerSocketChannel listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listening.bind(UnixDomainSocketAddress.of(live));
            assertThrows(IOException.class, () -> ControlSocket.clear(live));
            assertTrue(Files.exists(live));
        }
        assertThrows(IOException.class, () -> ControlSocket.clear(file));
        assertTrue(Files.exists(file));
    }
}
