package io.portcullis.daemon;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;

/** The control socket's file; who it serves is {@link ControlPeers}. */
final class ControlSocket {
    private ControlSocket() {}

    /** This process's uid. */
    static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
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
