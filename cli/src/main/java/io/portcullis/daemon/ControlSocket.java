package io.portcullis.daemon;

import io.netty.channel.Channel;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control socket's file, and the listening channel bound to it; who it serves is {@link
 * ControlPeers}. A socket is bound in a private directory (0700) beside the path, given mode 0600,
 * then renamed to the path (rename(2): whatever was there is replaced in one step), so there is no
 * moment when another uid could connect, and no moment with nothing at the path.
 */
final class ControlSocket {
    private static final Logger log = LoggerFactory.getLogger(ControlSocket.class);

    /** Binds a listening unix socket at a path, with the daemon's handlers. */
    @FunctionalInterface
    interface Binder {
        Channel bind(Path socket);
    }

    /** A socket bound and given mode 0600 in a private directory, not at its path yet. */
    record Staged(Channel channel, Path directory, Path socket, long inode) {}

    private final Path path;
    private final Binder binder;
    private final AtomicReference<Channel> server = new AtomicReference<>();
    /** The inode of the file this daemon moved to the path last: whether the path is still its own. */
    private volatile long bound;

    ControlSocket(Path path, Binder binder) {
        this.path = Objects.requireNonNull(path, "path");
        this.binder = Objects.requireNonNull(binder, "binder");
    }

    /** Binds a socket and moves it to the path; the one bound before, if any, is closed. */
    void bind() throws IOException {
        publish(stage());
    }

    /** Binds a socket, mode 0600, in a fresh private directory beside the path. */
    Staged stage() throws IOException {
        Path staging = Files.createTempDirectory(
                path.toAbsolutePath().getParent(),
                ".control-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path socket = staging.resolve("control.sock");
        Channel channel;
        try {
            channel = binder.bind(socket);
        } catch (RuntimeException e) {
            remove(staging, socket);
            throw e;
        }
        try {
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            return new Staged(channel, staging, socket, inode(socket));
        } catch (IOException | RuntimeException e) {
            discard(new Staged(channel, staging, socket, 0));
            throw e;
        }
    }

    /** Moves a staged socket to the path, and serves it instead of the one before. */
    void publish(Staged staged) throws IOException {
        try {
            Files.move(staged.socket(), path, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            discard(staged);
            throw e;
        }
        bound = staged.inode();
        Files.delete(staged.directory());
        Channel before = server.getAndSet(staged.channel());
        if (before != null) {
            before.close();
        }
    }

    /** Closes a staged socket that was never moved to the path, and removes its directory. */
    static void discard(Staged staged) {
        staged.channel().close().syncUninterruptibly();
        remove(staged.directory(), staged.socket());
    }

    private static void remove(Path directory, Path socket) {
        try {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            log.warn("could not remove {}: {}", directory, e.toString());
        }
    }

    /**
     * After a failed upgrade: when the path no longer holds this daemon's socket (a successor
     * renamed its own over it, then went away), binds a new one and takes the path back.
     */
    void reclaim() {
        try {
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && inode(path) == bound) {
                return;
            }
            bind();
            log.warn("upgrade: the successor had taken the control socket's path; this daemon took it back");
        } catch (IOException | RuntimeException e) {
            log.error("upgrade: cannot take the control socket's path {} back: {}", path, e.toString());
        }
    }

    /** Stops listening; the file at the path stays (the daemon removes it when it is its own). */
    void close() {
        Optional.ofNullable(server.get()).ifPresent(channel -> channel.close().syncUninterruptibly());
    }

    private static long inode(Path path) throws IOException {
        return ((Number) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue();
    }

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
