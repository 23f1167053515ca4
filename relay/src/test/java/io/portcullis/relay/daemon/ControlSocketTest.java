package io.portcullis.relay.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.portcullis.relay.tunnel.Transport;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ControlSocketTest {
    private static final int DAEMON_UID = 1000;

    private static Transport reading(Transport.PeerReader peers) {
        return new Transport(
                "test", NioIoHandler.newFactory(), NioServerDomainSocketChannel::new, NioSocketChannel::new, peers);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "null",
            value = {"1000, true", "0, false", "1001, false", "null, false"})
    void onlyThePeerWithTheDaemonsUidIsServed(Integer peerUid, boolean served) {
        Transport transport = reading(channel -> peerUid == null ? null : new Transport.Peer(42, peerUid));

        assertEquals(served, ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID));
    }

    @Test
    void unreadableCredentialsAreARefusal() {
        Transport transport = reading(channel -> {
            throw new IOException("getsockopt failed");
        });

        assertFalse(ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID));
    }

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
