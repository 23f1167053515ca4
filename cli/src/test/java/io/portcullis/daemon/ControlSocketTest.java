package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ControlSocketTest {
    private static final int DAEMON_UID = 1000;
    private static final long SELF = ProcessHandle.current().pid();

    private static Transport reading(Transport.PeerReader peers) {
        return new Transport(
                "test",
                NioIoHandler.newFactory(),
                NioServerDomainSocketChannel::new,
                family -> new NioSocketChannel(),
                peers,
                fd -> {
                    throw new UnsupportedOperationException();
                });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "null",
            value = {"1000, true", "0, false", "1001, false", "null, false"})
    void onlyThePeerWithTheDaemonsUidIsServed(Integer peerUid, boolean served) {
        Transport transport =
                reading(channel -> Optional.ofNullable(peerUid).map(uid -> new Transport.Peer(SELF, uid)));

        assertEquals(served, ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID, namespace -> false));
    }

    /** SPEC R5: a spawn that runs as the daemon's uid cannot reach its own control. */
    @Test
    void aPeerInASpawnsNetworkNamespaceIsRefused() throws IOException {
        Transport transport = reading(channel -> Optional.of(new Transport.Peer(SELF, DAEMON_UID)));
        long own =
                Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString().isEmpty()
                        ? -1
                        : ((Number) Files.getAttribute(Path.of("/proc/self/ns/net"), "unix:ino")).longValue();

        assertFalse(
                ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID, namespace -> namespace == own));
        assertTrue(ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID, namespace -> namespace != own));
    }

    @Test
    void aPeerWhoseNamespaceCannotBeReadIsRefused() {
        Transport transport = reading(channel -> Optional.of(new Transport.Peer(Integer.MAX_VALUE, DAEMON_UID)));

        assertFalse(ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID, namespace -> false));
    }

    @Test
    void unreadableCredentialsAreARefusal() {
        Transport transport = reading(channel -> {
            throw new IOException("getsockopt failed");
        });

        assertFalse(ControlSocket.samePeer(transport, new EmbeddedChannel(), DAEMON_UID, namespace -> false));
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
