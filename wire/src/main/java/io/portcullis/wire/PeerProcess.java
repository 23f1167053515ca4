package io.portcullis.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * The process at the other end of a connected unix socket, named by a pidfd: the one SO_PEERPIDFD
 * gives (Linux 6.5), else one opened on the pid that SO_PEERCRED gave. Its namespaces are read
 * through the pidfd itself (Linux 6.11), or else from {@code /proc/PID/ns}, which was that
 * process's when the pidfd shows it still alive after the read: a process that later takes a dead
 * peer's pid never passes for it. Fails on any doubt.
 */
public final class PeerProcess implements AutoCloseable {
    /** The kinds of namespace asked about. */
    public enum Type {
        PID,
        USER;

        /** The file's name in {@code /proc/PID/ns}. */
        String file() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A namespace as the kernel names it: its type, and the device and inode of its file. */
    public record Namespace(Type type, long device, long inode) {
        public Namespace {
            Objects.requireNonNull(type, "type");
        }

        static Namespace of(Type type, Path file) throws IOException {
            return new Namespace(
                    type,
                    ((Number) Files.getAttribute(file, "unix:dev")).longValue(),
                    ((Number) Files.getAttribute(file, "unix:ino")).longValue());
        }

        /** This process's own namespace of {@code type}. */
        public static Namespace own(Type type) throws IOException {
            return of(type, Path.of("/proc/self/ns", type.file()));
        }

        /** As the kernel writes it in {@code /proc/PID/ns}: {@code pid:[4026531836]}. */
        @Override
        public String toString() {
            return type.file() + ":[" + inode + "]";
        }
    }

    private final long pid;
    private final int pidfd;

    private PeerProcess(long pid, int pidfd) {
        this.pid = pid;
        this.pidfd = pidfd;
    }

    /**
     * The peer of the connected unix socket {@code connection}, whose SO_PEERCRED pid is {@code
     * pid}: 0 when that process is not in this process's pid namespace or one under it, which fails.
     */
    public static PeerProcess of(int connection, long pid) throws IOException {
        if (pid < 1) {
            throw new IOException("pid " + pid + ": the peer's process is not seen from this pid namespace"
                    + " (expected: a process in it or in one made under it)");
        }
        int pidfd;
        try {
            pidfd = Posix.peerPidfd(connection);
        } catch (Posix.Failure e) {
            if (e.errno() != Posix.ENOPROTOOPT) {
                throw e;
            }
            pidfd = Posix.pidfdOpen(pid);
        }
        return new PeerProcess(pid, pidfd);
    }

    public long pid() {
        return pid;
    }

    /** The peer's namespace of {@code type}. */
    public Namespace namespace(Type type) throws IOException {
        try {
            int namespace = switch (type) {
                case PID -> Posix.pidNamespaceOfPidfd(pidfd);
                case USER -> Posix.userNamespaceOfPidfd(pidfd);
            };
            try {
                return Namespace.of(type, Path.of("/proc/self/fd", Integer.toString(namespace)));
            } finally {
                Posix.closeQuietly(namespace);
            }
        } catch (Posix.Failure e) {
            if (e.errno() != Posix.ENOTTY && e.errno() != Posix.EINVAL) {
                throw e;
            }
        }
        Namespace namespace = Namespace.of(type, Path.of("/proc", Long.toString(pid), "ns", type.file()));
        if (Posix.exited(pidfd)) {
            throw new IOException("pid " + pid + " exited while its " + type.file() + " namespace was read");
        }
        return namespace;
    }

    @Override
    public void close() {
        Posix.closeQuietly(pidfd);
    }
}
