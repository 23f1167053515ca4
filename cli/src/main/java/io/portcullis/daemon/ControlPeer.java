package io.portcullis.daemon;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What the kernel says of a control connection's peer, read before a byte of it.
 *
 * @param uid the uid that connected (SO_PEERCRED)
 * @param pid its pid, for the log
 * @param process the network namespace of the process that connected, read through a pidfd
 * @param socket the network namespace that its socket was made in; empty when the daemon may not
 *     read it (see {@link #read})
 */
record ControlPeer(int uid, long pid, NetworkNamespace process, Optional<NetworkNamespace> socket) {
    ControlPeer {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(socket, "socket");
    }

    /** Reads an accepted connection's peer; the kernel's is {@link ControlPeer#read}. */
    @FunctionalInterface
    interface Reader {
        ControlPeer read(Channel channel) throws IOException;
    }

    /**
     * The peer of {@code channel} as the kernel tells it. The process's namespace is read through a
     * pidfd of the process that connected (SO_PEERPIDFD, Linux 6.5; before, a pidfd of the pid
     * SO_PEERCRED gave), from the pidfd itself (Linux 6.11) or else from {@code /proc/PID/ns/net},
     * which was that process's when the pidfd shows it still alive after the read: a process that
     * later takes a dead peer's pid never passes for it. The socket's namespace is the one its
     * connecting socket was made in (the kernel makes the accepted socket there); SIOCGSKNS reads
     * it where the daemon holds CAP_NET_ADMIN over it, which it does over every namespace made by a
     * process of its uid or inside a user namespace of its uid. Fails on any doubt: another
     * transport than epoll, a peer that is gone, a namespace that cannot be read.
     */
    static ControlPeer read(Channel channel) throws IOException {
        if (!(channel instanceof EpollDomainSocketChannel epoll)) {
            throw new IOException("a " + channel.getClass().getSimpleName()
                    + " cannot tell its peer's credentials (expected: the epoll transport)");
        }
        PeerCredentials credentials = epoll.peerCredentials();
        int fd = epoll.fd().intValue();
        try {
            return new ControlPeer(
                    credentials.uid(), credentials.pid(), processNamespace(fd, credentials.pid()), socketNamespace(fd));
        } catch (IOException e) {
            throw new Unreadable(credentials.uid(), credentials.pid(), e);
        }
    }

    /** The peer's credentials were read, its namespaces not (another uid's process may not be, for one). */
    static final class Unreadable extends IOException {
        private static final long serialVersionUID = 1L;
        private final int uid;
        private final long pid;

        Unreadable(int uid, long pid, IOException cause) {
            super("pid " + pid + " of uid " + uid + ": " + cause.getMessage(), cause);
            this.uid = uid;
            this.pid = pid;
        }

        int uid() {
            return uid;
        }

        long pid() {
            return pid;
        }
    }

    private static NetworkNamespace processNamespace(int fd, long pid) throws IOException {
        int pidfd;
        try {
            pidfd = Posix.peerPidfd(fd);
        } catch (Posix.Failure e) {
            if (e.errno() != Posix.ENOPROTOOPT) {
                throw e;
            }
            pidfd = Posix.pidfdOpen(pid);
        }
        try {
            try {
                int namespace = Posix.namespaceOfPidfd(pidfd);
                try {
                    return NetworkNamespace.ofDescriptor(namespace);
                } finally {
                    Posix.closeQuietly(namespace);
                }
            } catch (Posix.Failure e) {
                if (e.errno() != Posix.ENOTTY && e.errno() != Posix.EINVAL) {
                    throw e;
                }
            }
            NetworkNamespace namespace = NetworkNamespace.of(Path.of("/proc", Long.toString(pid), "ns", "net"));
            if (Posix.exited(pidfd)) {
                throw new IOException("pid " + pid + " exited while its network namespace was read");
            }
            return namespace;
        } finally {
            Posix.closeQuietly(pidfd);
        }
    }

    private static Optional<NetworkNamespace> socketNamespace(int fd) throws IOException {
        int namespace;
        try {
            namespace = Posix.namespaceOf(fd);
        } catch (Posix.Failure e) {
            if (e.errno() == Posix.EPERM) {
                return Optional.empty();
            }
            throw e;
        }
        try {
            return Optional.of(NetworkNamespace.ofDescriptor(namespace));
        } finally {
            Posix.closeQuietly(namespace);
        }
    }
}
