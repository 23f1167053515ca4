package io.portcullis.daemon;

import io.netty.channel.Channel;
import io.portcullis.entry.handoff.Receiver;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The control socket's file and its peers. */
final class ControlSocket {
    private static final Logger log = LoggerFactory.getLogger(ControlSocket.class);

    private ControlSocket() {}

    /** This process's uid. */
    static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /**
     * Whether the peer of {@code channel} runs with {@code uid} and outside every network namespace
     * that a spawn handed over (SPEC R5: a spawn running as the daemon's uid cannot reach its own
     * control). A transport that cannot read the peer's credentials (NIO) refuses every peer, and so
     * does a peer whose namespace cannot be read.
     */
    static boolean samePeer(Transport transport, Channel channel, int uid, Predicate<Long> spawnNamespace) {
        try {
            Optional<Transport.Peer> peer = transport.peers().read(channel);
            if (peer.isEmpty() || peer.get().uid() != uid) {
                log.warn("control connection refused: peer {} (expected: uid {})", peer, uid);
                return false;
            }
            long namespace = Receiver.Namespace.ofProcess(peer.get().pid()).inode();
            if (spawnNamespace.test(namespace)) {
                log.warn("control connection refused: peer {} is in a spawn's network namespace", peer.get());
                return false;
            }
            return true;
        } catch (IOException e) {
            log.warn("control connection refused: cannot read the peer's credentials: {}", e.toString());
            return false;
        }
    }

    /** Removes a stale socket at {@code path}; fails when anything else is there, or a daemon listens. */
    static void clear(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        PosixFileAttributes attributes =
                Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isOther()) {
            throw new IOException("--control: " + path + " (expected: no file, or a stale socket)");
        }
        boolean listening;
        try {
            SocketChannel.open(UnixDomainSocketAddress.of(path)).close();
            listening = true;
        } catch (IOException refused) {
            listening = false;
        }
        if (listening) {
            throw new IOException("--control: " + path + " (expected: no daemon listening there; one is)");
        }
        Files.delete(path);
    }
}
