package io.portcullis.wire;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The few Linux system calls of the hand-over (SPEC R4), through the JDK's FFM API: listening
 * sockets, a unix socket with SCM_RIGHTS both ways, the facts the relay checks about a received
 * socket, and execve for the entry becoming its command (R21); and for the relay, reading a
 * secret from a file that is checked as it is opened ({@link #openSecret}). Linux x86_64 and
 * aarch64 with glibc: the struct layouts below are those of LP64 Linux.
 */
@SuppressWarnings("restricted")
public final class Posix {
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    static final int AF_NETLINK = 16;
    /** sizeof(struct sockaddr_nl): family, padding, port id, groups. */
    private static final int SOCKADDR_NL_SIZE = 12;

    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_TYPE = 3;
    static final int SO_RCVTIMEO = 20;
    static final int SO_SNDTIMEO = 21;
    static final int SO_ACCEPTCONN = 30;
    static final int SO_PROTOCOL = 38;
    static final int SO_DOMAIN = 39;
    static final int SO_PEERPIDFD = 77;
    static final int SO_NETNS_COOKIE = 71;
    public static final int IPPROTO_IP = 0;
    public static final int IP_RECVERR = 11;
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;
    static final int SCM_RIGHTS = 1;
    static final int MSG_NOSIGNAL = 0x4000;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_CTRUNC = 0x8;
    static final int MSG_CMSG_CLOEXEC = 0x40000000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int F_SETFD = 2;
    static final int F_DUPFD_CLOEXEC = 1030;
    static final int FD_CLOEXEC = 1;
    static final int O_NONBLOCK = 0x800;
    static final int O_CLOEXEC = 0x80000;
    static final long SIOCGSKNS = 0x894C;
    /** TIOCOUTQ as sockets read it: the bytes of a TCP socket's send queue not yet acknowledged. */
    static final long SIOCOUTQ = 0x5411;

    static final long SIOCGIFFLAGS = 0x8913;
    static final long PIDFD_GET_NET_NAMESPACE = 0xFF04;
    static final long PIDFD_GET_PID_NAMESPACE = 0xFF05;
    static final long PIDFD_GET_USER_NAMESPACE = 0xFF09;
    static final long NS_GET_NSTYPE = 0xB703;
    static final int CLONE_NEWNET = 0x40000000;
    static final int O_RDONLY = 0;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EACCES = 13;
    public static final int ENOEXEC = 8;
    public static final int ENXIO = 6;
    public static final int ELOOP = 40;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EROFS = 30;

    public static final int ENOTTY = 25;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int ENOPROTOOPT = 92;
    public static final int SHUT_RD = 0;
    public static final int SHUT_RDWR = 2;
    static final int CLOSE_RANGE_CLOEXEC = 4;
    static final int SIG_SETMASK = 2;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_UDP = 17;

    /** The most descriptors one SCM_RIGHTS message carries (the kernel's SCM_MAX_FD). */
    public static final int MAX_FDS = 253;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    /** Where errno sits in the capture state (read directly: a VarHandle costs the start-up milliseconds). */
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    /**
     * One downcall handle, glibc's syscall(2), serves every call: linking a handle costs milliseconds,
     * and the entry's start to ready is counted in them (R22). Numbers per architecture.
     */
    private static final MethodHandle SYSCALL = LINKER.downcallHandle(
            LIBC.find("syscall").orElseThrow(() -> new IllegalStateException("libc has no syscall")),
            FunctionDescriptor.of(
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1),
            Linker.Option.captureCallState("errno"));

    private static final boolean AARCH64 = System.getProperty("os.arch").equals("aarch64");

    /** The system calls used, with their numbers on x86_64 and aarch64. */
    enum Call {
        SOCKET(41, 198),
        SETSOCKOPT(54, 208),
        GETSOCKOPT(55, 209),
        ACCEPT(288, 242),
        BIND(49, 200),
        LISTEN(50, 201),
        CONNECT(42, 203),
        GETSOCKNAME(51, 204),
        SENDMSG(46, 211),
        RECVMSG(47, 212),
        SEND(44, 206),
        PPOLL(271, 73),
        CLOSE(3, 57),
        OPEN(257, 56),
        READ(0, 63),
        STATX(332, 291),
        SETNS(308, 268),
        SHUTDOWN(48, 210),
        FCNTL(72, 25),
        IOCTL(16, 29),
        CLOSE_RANGE(436, 436),
        PIDFD_OPEN(434, 434),
        SIGPROCMASK(14, 135),
        SIGACTION(13, 134),
        PRLIMIT64(302, 261),
        GETEUID(107, 175),
        GETTID(186, 178),
        EXECVE(59, 221);

        private final long number;

        Call(long x86, long arm) {
            this.number = AARCH64 ? arm : x86;
        }
    }

    private Posix() {}

    /** A system call failed; {@link #errno()} says why. */
    public static final class Failure extends IOException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        Failure(String call, int errno) {
            super(call + ": " + strerror(errno));
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    /**
     * A TCP socket bound to {@code address} and listening, close-on-exec; IPv6 sockets are V6ONLY so
     * that ::1 never answers IPv4.
     */
    public static int listenTcp(InetSocketAddress address, int backlog) throws Failure {
        return boundSocket(address, SOCK_STREAM, backlog);
    }

    /** A TCP socket bound to {@code address} but not listening, close-on-exec. */
    public static int bindTcp(InetSocketAddress address) throws Failure {
        return boundSocket(address, SOCK_STREAM, -1);
    }

    /** A UDP socket bound to {@code address}, close-on-exec. */
    public static int bindUdp(InetSocketAddress address) throws Failure {
        return boundSocket(address, SOCK_DGRAM, -1);
    }

    private static int boundSocket(InetSocketAddress address, int type, int backlog) throws Failure {
        boolean v6 = address.getAddress() instanceof Inet6Address;
        int fd = check("socket", invoke(Call.SOCKET, v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            setInt(arena, fd, SOL_SOCKET, SO_REUSEADDR, 1);
            if (v6) {
                setInt(arena, fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
            }
            MemorySegment sockaddr = sockaddr(arena, address);
            check("bind", invoke(Call.BIND, fd, sockaddr, (int) sockaddr.byteSize()));
            if (backlog >= 0) {
                check("listen", invoke(Call.LISTEN, fd, backlog));
            }
            return fd;
        } catch (Failure e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /** A unix stream socket connected to {@code path}, close-on-exec, with a receive timeout. */
    public static int connectUnix(String path, int timeoutMillis) throws Failure {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        int fd = check("socket", invoke(Call.SOCKET, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timeout = arena.allocate(16);
            timeout.set(JAVA_LONG, 0, timeoutMillis / 1000);
            timeout.set(JAVA_LONG, 8, (timeoutMillis % 1000) * 1000L);
            check("setsockopt", invoke(Call.SETSOCKOPT, fd, SOL_SOCKET, SO_RCVTIMEO, timeout, 16));
            check("connect " + path, invoke(Call.CONNECT, fd, unixAddress(arena, bytes), 2 + bytes.length + 1));
            return fd;
        } catch (Failure e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /** A unix stream socket listening at {@code path}, close-on-exec: the relay's side, for tests of the entry. */
    public static int listenUnix(String path, int backlog) throws Failure {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        int fd = check("socket", invoke(Call.SOCKET, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            check("bind " + path, invoke(Call.BIND, fd, unixAddress(arena, bytes), 2 + bytes.length + 1));
            check("listen", invoke(Call.LISTEN, fd, backlog));
            return fd;
        } catch (Failure e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /** The next connection of a listening socket, non-blocking and close-on-exec; blocks until there is one. */
    public static int accept(int fd) throws Failure {
        return check("accept", invoke(Call.ACCEPT, fd, MemorySegment.NULL, MemorySegment.NULL, SOCK_CLOEXEC | 0x800));
    }

    /** The pid of a unix socket's peer (SO_PEERCRED). */
    public static long peerPid(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment credentials = arena.allocate(12);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 12);
            check("getsockopt SO_PEERCRED", invoke(Call.GETSOCKOPT, fd, SOL_SOCKET, 17, credentials, length));
            return credentials.get(JAVA_INT, 0);
        }
    }

    /** The control message that passes {@code fds} (SCM_RIGHTS); an empty segment for none. */
    private static MemorySegment rights(Arena arena, int[] fds) {
        if (fds.length == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment control = arena.allocate(cmsgSpace(4L * fds.length), 8);
        control.set(JAVA_LONG, 0, 16 + 4L * fds.length);
        control.set(JAVA_INT, 8, SOL_SOCKET);
        control.set(JAVA_INT, 12, SCM_RIGHTS);
        for (int i = 0; i < fds.length; i++) {
            control.set(JAVA_INT, 16 + 4L * i, fds[i]);
        }
        return control;
    }

    /** Sends {@code data} with {@code fds} attached in one message. */
    public static void sendWithFds(int socket, byte[] data, int[] fds) throws Failure {
        if (fds.length > MAX_FDS) {
            throw new IllegalArgumentException("fds: " + fds.length + " (expected: at most " + MAX_FDS + ")");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            MemorySegment control = rights(arena, fds);
            MemorySegment message = message(arena, buffer, control, control.byteSize());
            long sent = invokeLong(Call.SENDMSG, socket, message, MSG_NOSIGNAL);
            if (sent < 0) {
                throw new Failure("sendmsg", errno());
            }
            if (sent < data.length) {
                sendAll(socket, data, (int) sent);
            }
        }
    }

    /**
     * A unix datagram socket bound to {@code address}, close-on-exec: a path, or {@code @} and a
     * name in the abstract namespace. The receiving side of {@link #sendDatagram}, for tests that
     * play the service manager.
     */
    public static int bindUnixDatagram(String address) throws Failure {
        int fd = check("socket", invoke(Call.SOCKET, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            UnixAddress bound = unixAddress(arena, address);
            check("bind " + address, invoke(Call.BIND, fd, bound.sockaddr(), bound.length()));
            return fd;
        } catch (Failure | RuntimeException e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /**
     * Sends {@code data}, with {@code fds} attached when there are any (SCM_RIGHTS), as one datagram
     * from a fresh unix datagram socket to {@code address} (a path, or {@code @} and an abstract
     * name), as sd_notify(3) does; waits at most {@code timeoutMillis} for room in the receiver's
     * queue (EAGAIN after that).
     */
    public static void sendDatagram(String address, byte[] data, int[] fds, int timeoutMillis) throws Failure {
        if (fds.length > MAX_FDS) {
            throw new IllegalArgumentException("fds: " + fds.length + " (expected: at most " + MAX_FDS + ")");
        }
        int fd = check("socket", invoke(Call.SOCKET, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timeout = arena.allocate(16, 8);
            timeout.set(JAVA_LONG, 0, timeoutMillis / 1000);
            timeout.set(JAVA_LONG, 8, (timeoutMillis % 1000) * 1000L);
            check("setsockopt", invoke(Call.SETSOCKOPT, fd, SOL_SOCKET, SO_SNDTIMEO, timeout, 16));
            UnixAddress to = unixAddress(arena, address);
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            MemorySegment control = rights(arena, fds);
            MemorySegment message = message(arena, buffer, control, control.byteSize());
            message.set(ADDRESS, 0, to.sockaddr());
            message.set(JAVA_INT, 8, to.length());
            long sent;
            do {
                sent = invokeLong(Call.SENDMSG, fd, message, MSG_NOSIGNAL);
            } while (sent < 0 && errno() == EINTR);
            if (sent < 0) {
                throw new Failure("sendmsg " + address, errno());
            }
        } finally {
            closeQuietly(fd);
        }
    }

    /** Sends all of {@code data} from {@code offset}. */
    public static void sendAll(int socket, byte[] data, int offset) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            long at = offset;
            while (at < data.length) {
                long sent = invokeLong(Call.SEND, socket, buffer.asSlice(at), data.length - at, MSG_NOSIGNAL, 0L, 0);
                if (sent < 0) {
                    if (errno() == EINTR) {
                        continue;
                    }
                    throw new Failure("send", errno());
                }
                at += sent;
            }
        }
    }

    /** What one {@link #receive} got: bytes (empty at the end of input) and the descriptors that came with them. */
    public record Received(byte[] data, int[] fds, boolean controlTruncated) {}

    /**
     * One recvmsg without blocking, room for {@code maxBytes} and {@link #MAX_FDS} descriptors,
     * which arrive close-on-exec. Empty when nothing is there yet.
     */
    public static Optional<Received> receive(int socket, int maxBytes) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(maxBytes);
            long controlLength = cmsgSpace(4L * MAX_FDS);
            MemorySegment control = arena.allocate(controlLength, 8);
            MemorySegment message = message(arena, buffer, control, controlLength);
            long got = invokeLong(Call.RECVMSG, socket, message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
            if (got < 0) {
                if (errno() == EAGAIN || errno() == EINTR) {
                    return Optional.empty();
                }
                throw new Failure("recvmsg", errno());
            }
            int flags = message.get(JAVA_INT, 48);
            List<Integer> fds = new ArrayList<>();
            long used = message.get(JAVA_LONG, 40);
            long at = 0;
            while (at + 16 <= used) {
                long length = control.get(JAVA_LONG, at);
                if (length < 16 || at + length > used) {
                    break;
                }
                if (control.get(JAVA_INT, at + 8) == SOL_SOCKET && control.get(JAVA_INT, at + 12) == SCM_RIGHTS) {
                    for (long i = at + 16; i + 4 <= at + length; i += 4) {
                        fds.add(control.get(JAVA_INT, i));
                    }
                }
                at += cmsgSpace(length - 16);
            }
            byte[] data = buffer.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
            return Optional.of(
                    new Received(data, fds.stream().mapToInt(Integer::intValue).toArray(), (flags & MSG_CTRUNC) != 0));
        }
    }

    /** Waits up to {@code millis} for {@code fd} to be readable; false on time-out. */
    public static boolean awaitReadable(int fd, int millis) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(8, 4);
            pollfd.set(JAVA_INT, 0, fd);
            pollfd.set(JAVA_SHORT, 4, (short) 1);
            MemorySegment timeout = arena.allocate(16, 8);
            timeout.set(JAVA_LONG, 0, millis / 1000);
            timeout.set(JAVA_LONG, 8, (millis % 1000) * 1_000_000L);
            int ready = invoke(Call.PPOLL, pollfd, 1L, timeout, 0L, 8L);
            if (ready < 0 && errno() != EINTR) {
                throw new Failure("poll", errno());
            }
            return ready > 0;
        }
    }

    /** An integer socket option. */
    public static int intOption(int fd, int level, int name) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(4);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 4);
            check("getsockopt", invoke(Call.GETSOCKOPT, fd, level, name, value, length));
            return value.get(JAVA_INT, 0);
        }
    }

    /**
     * The cookie of the network namespace that socket {@code fd} was made in (SO_NETNS_COOKIE, Linux
     * 5.14): a number no other namespace has while the machine runs, readable without privilege.
     * ENOPROTOOPT on an older kernel.
     */
    public static long namespaceCookie(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(8, 8);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 8);
            check(
                    "getsockopt SO_NETNS_COOKIE",
                    invoke(Call.GETSOCKOPT, fd, SOL_SOCKET, SO_NETNS_COOKIE, value, length));
            return value.get(JAVA_LONG, 0);
        }
    }

    /** The cookie of this process's own network namespace ({@link #namespaceCookie}). */
    public static long ownNamespaceCookie() throws Failure {
        int fd = check("socket", invoke(Call.SOCKET, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        try {
            return namespaceCookie(fd);
        } finally {
            closeQuietly(fd);
        }
    }

    /** Sets an integer socket option. */
    public static void setIntOption(int fd, int level, int name, int value) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            setInt(arena, fd, level, name, value);
        }
    }

    /** Sends {@code data} as one datagram to {@code address} from the unconnected socket {@code fd}. */
    public static void sendTo(int fd, byte[] data, InetSocketAddress address) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            MemorySegment sockaddr = sockaddr(arena, address);
            long sent = invokeLong(
                    Call.SEND, fd, buffer, (long) data.length, MSG_NOSIGNAL, sockaddr, (int) sockaddr.byteSize());
            if (sent < 0) {
                throw new Failure("sendto", errno());
            }
        }
    }

    /** A datagram netlink socket of {@code protocol} (NETLINK_SOCK_DIAG, ...), close-on-exec. */
    public static int netlinkSocket(int protocol) throws Failure {
        return check("socket", invoke(Call.SOCKET, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, protocol));
    }

    /**
     * Sends what remains of {@code request} as one message to the kernel (netlink port 0) on the
     * netlink socket {@code fd}; returns the bytes sent. {@code request} is not moved.
     */
    public static long sendToKernel(int fd, ByteBuffer request) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(request.remaining(), 8);
            message.asByteBuffer().put(request.duplicate());
            MemorySegment kernel = arena.allocate(SOCKADDR_NL_SIZE, 4);
            kernel.set(JAVA_SHORT, 0, (short) AF_NETLINK);
            long sent = invokeLong(Call.SEND, fd, message, message.byteSize(), 0, kernel, SOCKADDR_NL_SIZE);
            if (sent < 0) {
                throw new Failure("sendto", errno());
            }
            return sent;
        }
    }

    /**
     * Reads once from {@code fd} into {@code into}, waiting for data: from a datagram socket, one
     * datagram, cut to {@code into}'s size. Returns the bytes read.
     */
    public static int read(int fd, MemorySegment into) throws Failure {
        long read = invokeLong(Call.READ, fd, into, into.byteSize());
        if (read < 0) {
            throw new Failure("read", errno());
        }
        return (int) read;
    }

    /** The address a socket is bound to; empty when it is not an IPv4 or IPv6 socket. */
    public static Optional<InetSocketAddress> localAddress(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = arena.allocate(128);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 128);
            check("getsockname", invoke(Call.GETSOCKNAME, fd, sockaddr, length));
            int family = Short.toUnsignedInt(sockaddr.get(JAVA_SHORT, 0));
            int port = (Byte.toUnsignedInt(sockaddr.get(ValueLayout.JAVA_BYTE, 2)) << 8)
                    | Byte.toUnsignedInt(sockaddr.get(ValueLayout.JAVA_BYTE, 3));
            byte[] address;
            if (family == AF_INET) {
                address = sockaddr.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE);
            } else if (family == AF_INET6) {
                address = sockaddr.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
            } else {
                return Optional.empty();
            }
            try {
                return Optional.of(new InetSocketAddress(InetAddress.getByAddress(address), port));
            } catch (UnknownHostException e) {
                throw new AssertionError("a 4- or 16-byte address is always an address", e);
            }
        }
    }

    /**
     * The bytes the TCP socket {@code fd} was given and its peer has not yet acknowledged (SIOCOUTQ):
     * it falls as a slow reader takes what sits in the kernel's buffers, which the writer does not
     * otherwise see.
     */
    public static int unacknowledged(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(4);
            check("ioctl SIOCOUTQ", invoke(Call.IOCTL, fd, SIOCOUTQ, value));
            return value.get(JAVA_INT, 0);
        }
    }

    /** A new descriptor for the network namespace of the socket {@code fd} (SIOCGSKNS). */
    public static int namespaceOf(int fd) throws Failure {
        return check("ioctl SIOCGSKNS", invoke(Call.IOCTL, fd, SIOCGSKNS));
    }

    /**
     * A pidfd of the process at the other end of the unix socket {@code fd}, the one that connected
     * (SO_PEERPIDFD, Linux 6.5): it names that process for as long as it is open, so no later
     * process that takes its pid can pass for it. ENOPROTOOPT on an older kernel.
     */
    public static int peerPidfd(int fd) throws Failure {
        return intOption(fd, SOL_SOCKET, SO_PEERPIDFD);
    }

    /** A pidfd of process {@code pid} (pidfd_open, Linux 5.3), close-on-exec. */
    public static int pidfdOpen(long pid) throws Failure {
        return check("pidfd_open", invoke(Call.PIDFD_OPEN, pid, 0));
    }

    /**
     * A new descriptor for the network namespace of the process that {@code pidfd} names
     * (PIDFD_GET_NET_NAMESPACE, Linux 6.11; ENOTTY or EINVAL before): ESRCH once it has exited.
     */
    public static int namespaceOfPidfd(int pidfd) throws Failure {
        return check("ioctl PIDFD_GET_NET_NAMESPACE", invoke(Call.IOCTL, pidfd, PIDFD_GET_NET_NAMESPACE));
    }

    /** As {@link #namespaceOfPidfd}, for the pid namespace (PIDFD_GET_PID_NAMESPACE). */
    static int pidNamespaceOfPidfd(int pidfd) throws Failure {
        return check("ioctl PIDFD_GET_PID_NAMESPACE", invoke(Call.IOCTL, pidfd, PIDFD_GET_PID_NAMESPACE));
    }

    /** As {@link #namespaceOfPidfd}, for the user namespace (PIDFD_GET_USER_NAMESPACE). */
    static int userNamespaceOfPidfd(int pidfd) throws Failure {
        return check("ioctl PIDFD_GET_USER_NAMESPACE", invoke(Call.IOCTL, pidfd, PIDFD_GET_USER_NAMESPACE));
    }

    /**
     * Whether the process that {@code pidfd} names has exited: its pidfd polls readable then (a
     * descriptor that is no pidfd polls as an error, which counts as exited too).
     */
    public static boolean exited(int pidfd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(8, 4);
            pollfd.set(JAVA_INT, 0, pidfd);
            pollfd.set(JAVA_SHORT, 4, (short) 1);
            MemorySegment now = arena.allocate(16, 8);
            int ready;
            do {
                ready = invoke(Call.PPOLL, pollfd, 1L, now, 0L, 8L);
            } while (ready < 0 && errno() == EINTR);
            return check("poll", ready) > 0;
        }
    }

    /**
     * Opens the network namespace file {@code path} ({@code /run/netns/NAME}, {@code /proc/PID/ns/net}),
     * close-on-exec; fails with EINVAL when it is a namespace file of another kind, or no namespace.
     */
    public static int openNetworkNamespace(String path) throws Failure {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = check("open " + path, invoke(Call.OPEN, AT_FDCWD, arena.allocateFrom(path), O_RDONLY | O_CLOEXEC));
        }
        int type = invoke(Call.IOCTL, fd, NS_GET_NSTYPE);
        if (type != CLONE_NEWNET) {
            int errno = type < 0 ? errno() : EINVAL;
            closeQuietly(fd);
            throw new Failure(path + ": not a network namespace", errno);
        }
        return fd;
    }

    /**
     * Whether the interface {@code name} of the calling thread's network namespace is up
     * (SIOCGIFFLAGS, IFF_UP).
     */
    public static boolean interfaceUp(String name) throws Failure {
        int fd = check("socket", invoke(Call.SOCKET, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment request = arena.allocate(40, 8);
            byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(bytes, 0, request, ValueLayout.JAVA_BYTE, 0, Math.min(bytes.length, 15));
            check("ioctl SIOCGIFFLAGS " + name, invoke(Call.IOCTL, fd, SIOCGIFFLAGS, request));
            return (request.get(JAVA_SHORT, 16) & 1) != 0;
        } finally {
            closeQuietly(fd);
        }
    }

    /** A process's descriptor limit (RLIMIT_NOFILE); {@link Long#MAX_VALUE} stands for unlimited. */
    public record DescriptorLimit(long soft, long hard) {}

    private static final int RLIMIT_NOFILE = 7;

    /** This process's descriptor limit. */
    public static DescriptorLimit descriptorLimit() throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment old = arena.allocate(16, 8);
            check("prlimit", invoke(Call.PRLIMIT64, 0, RLIMIT_NOFILE, MemorySegment.NULL, old));
            return limit(old);
        }
    }

    /** Raises this process's soft descriptor limit to its hard limit; returns the limit now in force. */
    public static DescriptorLimit raiseDescriptorLimit() throws Failure {
        DescriptorLimit now = descriptorLimit();
        if (now.soft() == now.hard()) {
            return now;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wanted = arena.allocate(16, 8);
            wanted.set(JAVA_LONG, 0, now.hard() == Long.MAX_VALUE ? -1L : now.hard());
            wanted.set(JAVA_LONG, 8, now.hard() == Long.MAX_VALUE ? -1L : now.hard());
            check("prlimit", invoke(Call.PRLIMIT64, 0, RLIMIT_NOFILE, wanted, MemorySegment.NULL));
        }
        return descriptorLimit();
    }

    /** struct rlimit64; RLIM64_INFINITY (all ones) reads as unlimited. */
    private static DescriptorLimit limit(MemorySegment rlimit) {
        long soft = rlimit.get(JAVA_LONG, 0);
        long hard = rlimit.get(JAVA_LONG, 8);
        return new DescriptorLimit(soft < 0 ? Long.MAX_VALUE : soft, hard < 0 ? Long.MAX_VALUE : hard);
    }

    /** Makes {@code fd} non-blocking. */
    public static void nonBlocking(int fd) throws Failure {
        int flags = check("fcntl", invoke(Call.FCNTL, fd, F_GETFL, 0));
        check("fcntl", invoke(Call.FCNTL, fd, F_SETFL, flags | O_NONBLOCK));
    }

    /**
     * Makes {@code fd} blocking: what a holder of a copy of a handed-over socket can do to the one
     * open file description every copy shares (the relay's tests play that holder).
     */
    public static void blocking(int fd) throws Failure {
        int flags = check("fcntl", invoke(Call.FCNTL, fd, F_GETFL, 0));
        check("fcntl", invoke(Call.FCNTL, fd, F_SETFL, flags & ~O_NONBLOCK));
    }

    /** Whether {@code fd}'s open file description lacks {@code O_NONBLOCK}, so a read or an accept on it may wait. */
    public static boolean isBlocking(int fd) throws Failure {
        return (check("fcntl", invoke(Call.FCNTL, fd, F_GETFL, 0)) & O_NONBLOCK) == 0;
    }

    /** A new descriptor, close-on-exec, for the open file of {@code fd}, whatever {@code fd} is at that moment. */
    public static int duplicate(int fd) throws Failure {
        return check("fcntl F_DUPFD_CLOEXEC", invoke(Call.FCNTL, fd, F_DUPFD_CLOEXEC, 0));
    }

    /** The calling thread's id in the kernel (gettid), as /proc/self/task names it. */
    public static int threadId() {
        return invoke(Call.GETTID);
    }

    /**
     * Makes the socket {@code fd} blocking, a send on it failing (EAGAIN) once it waited {@code
     * timeoutMillis} for room: for a connection that one thread now speaks on with these calls.
     */
    public static void blocking(int fd, int timeoutMillis) throws Failure {
        int flags = check("fcntl", invoke(Call.FCNTL, fd, F_GETFL, 0));
        check("fcntl", invoke(Call.FCNTL, fd, F_SETFL, flags & ~O_NONBLOCK));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timeout = arena.allocate(16);
            timeout.set(JAVA_LONG, 0, timeoutMillis / 1000);
            timeout.set(JAVA_LONG, 8, (timeoutMillis % 1000) * 1000L);
            check("setsockopt", invoke(Call.SETSOCKOPT, fd, SOL_SOCKET, SO_SNDTIMEO, timeout, 16));
        }
    }

    /** Marks {@code fd} close-on-exec. */
    static void closeOnExec(int fd) throws Failure {
        check("fcntl", invoke(Call.FCNTL, fd, F_SETFD, FD_CLOEXEC));
    }

    /**
     * Moves the calling thread (only it) into the network namespace at {@code path}, such as
     * {@code /proc/PID/ns/net}: the sockets it makes from then on are that namespace's. For tests
     * that play a program inside a spawn's namespace.
     */
    public static void enterNetworkNamespace(String path) throws Failure {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = check("open " + path, invoke(Call.OPEN, AT_FDCWD, arena.allocateFrom(path), O_CLOEXEC));
        }
        try {
            check("setns " + path, invoke(Call.SETNS, fd, 0x40000000));
        } finally {
            closeQuietly(fd);
        }
    }

    /**
     * What statx says of an open file: its type and permission bits, its size, its owner and its
     * number of names (hard links; 0 once every name is removed).
     */
    public record FileFacts(int mode, long size, int uid, long links) {
        private static final int S_IFMT = 0xF000;
        private static final int S_IFREG = 0x8000;
        private static final int S_IFIFO = 0x1000;
        private static final int S_IROTH = 0x4;
        private static final int PERMISSIONS = 07777;

        public boolean isRegularFile() {
            return (mode & S_IFMT) == S_IFREG;
        }

        public boolean isFifo() {
            return (mode & S_IFMT) == S_IFIFO;
        }

        public boolean othersMayRead() {
            return (mode & S_IROTH) != 0;
        }

        /** The permission bits (with set-user-id, set-group-id and sticky), e.g. {@code 0640}. */
        public int permissions() {
            return mode & PERMISSIONS;
        }

        /** Whether the permission bits are among {@code allowed}'s (0640: no more than the owner's rw, the group's r). */
        public boolean permissionsAtMost(int allowed) {
            return (permissions() & ~allowed) == 0;
        }
    }

    private static final int O_NOFOLLOW = AARCH64 ? 0x8000 : 0x20000;
    private static final int O_WRONLY = 1;
    private static final int O_CREAT = 0x40;
    private static final int O_EXCL = 0x80;
    private static final int O_APPEND = 0x400;
    private static final int EEXIST = 17;
    private static final int AT_FDCWD = -100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_BASIC_STATS = 0x7ff;
    private static final int STATX_INO = 0x100;

    /**
     * Opens {@code path} for reading, close-on-exec, without following a link in its last part
     * (ELOOP) and without waiting on a FIFO or a device: whatever the name gives is opened at once,
     * and {@link #facts} of the descriptor then say what was opened. A check made on the
     * descriptor holds for what is read from it, whatever the name is made to give afterwards.
     */
    public static int openSecret(String path) throws Failure {
        return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
    }

    /**
     * Opens {@code path} to append to it, close-on-exec: created new with {@code mode} (the umask
     * narrows it) when nothing is there ({@code O_EXCL}: never an existing file, a link or a FIFO
     * put in its place meanwhile), else opened as {@link #openSecret} opens, without following a
     * link and without waiting on a FIFO (one with no reader is ENXIO at once). {@link #facts} of
     * the descriptor then say what was opened.
     */
    public static Appending openAppend(String path, int mode) throws Failure {
        int append = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
        try {
            return new Appending(open(path, append | O_CREAT | O_EXCL, mode), true);
        } catch (Failure e) {
            if (e.errno() != EEXIST) {
                throw e;
            }
        }
        return new Appending(open(path, append | O_NONBLOCK, 0), false);
    }

    /** A descriptor open to append, and whether {@link #openAppend} made the file. */
    public record Appending(int fd, boolean created) {}

    private static int open(String path, int flags, int mode) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            return check("open", invoke(Call.OPEN, AT_FDCWD, arena.allocateFrom(path), flags, mode));
        }
    }

    /** The effective uid of this process: the owner of the files it creates. */
    public static int effectiveUid() {
        return invoke(Call.GETEUID);
    }

    /**
     * The inode number of the open file {@code fd} (statx of the descriptor itself): for a socket,
     * its identity while it lives, whichever descriptor names it.
     */
    public static long inode(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment statx = arena.allocate(256, 8);
            check("statx", invoke(Call.STATX, fd, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_INO, statx));
            // struct statx: stx_ino (u64) at 32
            return statx.get(JAVA_LONG, 32);
        }
    }

    /** The facts of the open file {@code fd} (statx of the descriptor itself). */
    public static FileFacts facts(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment statx = arena.allocate(256, 8);
            check("statx", invoke(Call.STATX, fd, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_BASIC_STATS, statx));
            // struct statx, the same on every architecture: stx_nlink (u32) at 16, stx_uid (u32) at 20,
            // stx_mode (u16) at 28, stx_size at 40
            return new FileFacts(
                    Short.toUnsignedInt(statx.get(JAVA_SHORT, 28)),
                    statx.get(JAVA_LONG, 40),
                    statx.get(JAVA_INT, 20),
                    Integer.toUnsignedLong(statx.get(JAVA_INT, 16)));
        }
    }

    /**
     * Reads {@code fd} to its end or until {@code max} bytes are read, whichever comes first; a
     * descriptor that would block is an error (EAGAIN), since a regular file never does.
     */
    public static byte[] readAtMost(int fd, int max) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Math.max(1, max));
            long read = 0;
            while (read < max) {
                long n = invokeLong(Call.READ, fd, buffer.asSlice(read), max - read);
                if (n < 0 && errno() == EINTR) {
                    continue;
                }
                if (n < 0) {
                    throw new Failure("read", errno());
                }
                if (n == 0) {
                    break;
                }
                read += n;
            }
            return buffer.asSlice(0, read).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Shuts a socket down both ways; a thread blocked in accept on it returns. */
    public static void shutdownQuietly(int fd) {
        shutdownQuietly(fd, SHUT_RDWR);
    }

    /**
     * Shuts a socket down {@code how} ({@link #SHUT_RD}, {@link #SHUT_RDWR}), ignoring a failure: on
     * an unconnected datagram socket Linux answers ENOTCONN but marks the socket shut all the same.
     */
    public static void shutdownQuietly(int fd, int how) {
        invoke(Call.SHUTDOWN, fd, how);
    }

    public static void close(int fd) throws Failure {
        check("close", invoke(Call.CLOSE, fd));
    }

    /** Closes, ignoring a failure: the descriptor is released either way. */
    public static void closeQuietly(int fd) {
        invoke(Call.CLOSE, fd);
    }

    public static void closeQuietly(int[] fds) {
        for (int fd : fds) {
            closeQuietly(fd);
        }
    }

    /**
     * Marks every descriptor from 3 up close-on-exec: close_range(2) where the kernel has it
     * (5.11), else one fcntl per descriptor listed in /proc/self/fd.
     */
    public static void closeOnExecFrom3() throws IOException {
        if (invoke(Call.CLOSE_RANGE, 3, -1, CLOSE_RANGE_CLOEXEC) == 0) {
            return;
        }
        try (var listing = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            for (int fd : listing.map(
                            path -> Integer.parseInt(path.getFileName().toString()))
                    .filter(fd -> fd > 2)
                    .toList()) {
                if (invoke(Call.FCNTL, fd, F_SETFD, FD_CLOEXEC) < 0 && errno() != 9) {
                    throw new Failure("fcntl F_SETFD " + fd, errno());
                }
            }
        }
    }

    /**
     * Gives the calling thread the signal state a shell gives its child: an empty signal mask, and
     * the default disposition for every signal that is ignored (execve keeps both; a caught
     * signal's handler is reset by execve itself).
     */
    public static void defaultSignals() throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment empty = arena.allocate(8, 8);
            check("rt_sigprocmask", invoke(Call.SIGPROCMASK, SIG_SETMASK, empty, 0L, 8L));
            // The kernel's struct sigaction: handler, flags, restorer, mask; all 0 is SIG_DFL.
            MemorySegment old = arena.allocate(32, 8);
            MemorySegment dfl = arena.allocate(32, 8);
            for (int signal = 1; signal < 65; signal++) {
                if (signal == 9 || signal == 19 || invoke(Call.SIGACTION, signal, 0L, old, 8L) != 0) {
                    continue;
                }
                if (old.get(JAVA_LONG, 0) == 1L) { // SIG_IGN
                    check("rt_sigaction " + signal, invoke(Call.SIGACTION, signal, dfl, 0L, 8L));
                }
            }
        }
    }

    /**
     * Gives {@code signal} its default disposition if it was ignored (a parent's {@code nohup} or
     * {@code trap '' HUP}, kept across execve); true when it was. The JVM installs no handler for a
     * signal it finds ignored, so a handler installed after this takes effect either way.
     */
    public static boolean unignore(int signal) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment old = arena.allocate(32, 8);
            check("rt_sigaction " + signal, invoke(Call.SIGACTION, signal, 0L, old, 8L));
            if (old.get(JAVA_LONG, 0) != 1L) { // SIG_IGN
                return false;
            }
            check("rt_sigaction " + signal, invoke(Call.SIGACTION, signal, arena.allocate(32, 8), 0L, 8L));
            return true;
        }
    }

    /** Ignores {@code signal} (SIG_IGN): what {@link #unignore} undoes, put back when no handler could be installed. */
    public static void ignore(int signal) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ign = arena.allocate(32, 8);
            ign.set(JAVA_LONG, 0, 1L); // SIG_IGN
            check("rt_sigaction " + signal, invoke(Call.SIGACTION, signal, ign, 0L, 8L));
        }
    }

    /** Linked on first use: only a service that adopts descriptors unsets its environment. */
    private static final class Unsetenv {
        static final MethodHandle HANDLE =
                LINKER.downcallHandle(LIBC.find("unsetenv").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /**
     * Removes {@code name} from the C library's environment of this process, which a child started
     * with the environment it inherits gets (the JDK's {@code System.getenv} keeps its own copy).
     */
    public static void unsetenv(String name) {
        try (Arena arena = Arena.ofConfined()) {
            int result = (int) Unsetenv.HANDLE.invokeExact(arena.allocateFrom(name));
            if (result != 0) {
                throw new IllegalArgumentException("name: " + name + " (expected: a variable name)");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("native call failed: " + e, e);
        }
    }

    /** Replaces this process with {@code path}; returns only by throwing when execve failed. */
    public static Failure execve(String path, List<String> argv, List<String> environment) {
        try (Arena arena = Arena.ofConfined()) {
            invoke(Call.EXECVE, arena.allocateFrom(path), strings(arena, argv), strings(arena, environment));
            return new Failure("execve " + path, errno());
        }
    }

    private static MemorySegment strings(Arena arena, List<String> values) {
        MemorySegment array = arena.allocate(ADDRESS, values.size() + 1L);
        for (int i = 0; i < values.size(); i++) {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(values.get(i)));
        }
        array.setAtIndex(ADDRESS, values.size(), MemorySegment.NULL);
        return array;
    }

    /** Linked on the first failure only: the path that succeeds does not pay for it. */
    private static final class Strerror {
        static final MethodHandle HANDLE =
                LINKER.downcallHandle(LIBC.find("strerror").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) Strerror.HANDLE.invokeExact(errno);
            return text.reinterpret(256).getString(0);
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /** A struct sockaddr_un and how many of its bytes count. */
    private record UnixAddress(MemorySegment sockaddr, int length) {}

    /**
     * {@code address} as a struct sockaddr_un: a path (NUL-terminated, at most 107 bytes), or
     * {@code @} and a name in the abstract namespace (a NUL, then the name, at most 107 bytes, its
     * length given by the address length alone).
     */
    private static UnixAddress unixAddress(Arena arena, String address) {
        byte[] bytes = address.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < 2 || (bytes[0] != '/' && bytes[0] != '@')) {
            throw new IllegalArgumentException(
                    "address: " + address + " (expected: an absolute path, or @ and an abstract name)");
        }
        if (bytes[0] == '/') {
            return new UnixAddress(unixAddress(arena, bytes), 2 + bytes.length + 1);
        }
        bytes[0] = 0;
        return new UnixAddress(unixAddress(arena, bytes), 2 + bytes.length);
    }

    /** struct sockaddr_un for a path of at most 107 bytes, NUL-terminated. */
    private static MemorySegment unixAddress(Arena arena, byte[] path) {
        if (path.length > 107) {
            throw new IllegalArgumentException("path: " + path.length + " bytes (expected: at most 107)");
        }
        MemorySegment sockaddr = arena.allocate(110);
        sockaddr.set(JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(path, 0, sockaddr, ValueLayout.JAVA_BYTE, 2, path.length);
        return sockaddr;
    }

    static MemorySegment sockaddr(Arena arena, InetSocketAddress address) {
        byte[] bytes = address.getAddress().getAddress();
        int port = address.getPort();
        if (address.getAddress() instanceof Inet4Address) {
            MemorySegment sockaddr = arena.allocate(16);
            sockaddr.set(JAVA_SHORT, 0, (short) AF_INET);
            sockaddr.set(ValueLayout.JAVA_BYTE, 2, (byte) (port >>> 8));
            sockaddr.set(ValueLayout.JAVA_BYTE, 3, (byte) port);
            MemorySegment.copy(bytes, 0, sockaddr, ValueLayout.JAVA_BYTE, 4, 4);
            return sockaddr;
        }
        MemorySegment sockaddr = arena.allocate(28);
        sockaddr.set(JAVA_SHORT, 0, (short) AF_INET6);
        sockaddr.set(ValueLayout.JAVA_BYTE, 2, (byte) (port >>> 8));
        sockaddr.set(ValueLayout.JAVA_BYTE, 3, (byte) port);
        MemorySegment.copy(bytes, 0, sockaddr, ValueLayout.JAVA_BYTE, 8, 16);
        return sockaddr;
    }

    private static void setInt(Arena arena, int fd, int level, int name, int value) throws Failure {
        MemorySegment option = arena.allocate(4);
        option.set(JAVA_INT, 0, value);
        check("setsockopt", invoke(Call.SETSOCKOPT, fd, level, name, option, 4));
    }

    /** struct msghdr (56 bytes) with one iovec over {@code buffer}. */
    private static MemorySegment message(Arena arena, MemorySegment buffer, MemorySegment control, long controlLength) {
        MemorySegment iov = arena.allocate(16, 8);
        iov.set(ADDRESS, 0, buffer);
        iov.set(JAVA_LONG, 8, buffer.byteSize());
        MemorySegment message = arena.allocate(56, 8);
        message.set(ADDRESS, 16, iov);
        message.set(JAVA_LONG, 24, 1);
        message.set(ADDRESS, 32, control);
        message.set(JAVA_LONG, 40, controlLength);
        return message;
    }

    private static long cmsgSpace(long length) {
        return 16 + ((length + 7) & ~7L);
    }

    /** Where each thread's calls leave their errno; read right after the call on the same thread. */
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    static int invoke(Call call, Object... args) {
        return (int) invokeLong(call, args);
    }

    /** Integers, longs and segments (their address) as the six arguments of syscall(2), unused ones 0. */
    static long invokeLong(Call call, Object... args) {
        long[] words = new long[6];
        for (int i = 0; i < args.length; i++) {
            words[i] = switch (args[i]) {
                case Integer value -> value;
                case Long value -> value;
                case MemorySegment segment -> segment.address();
                default ->
                    throw new IllegalArgumentException(
                            "args[" + i + "]: " + args[i] + " (expected: an int, a long or a segment)");
            };
        }
        try {
            return (long) SYSCALL.invokeExact(
                    STATE.get(), call.number, words[0], words[1], words[2], words[3], words[4], words[5]);
        } catch (Throwable e) {
            throw new IllegalStateException("native call failed: " + e, e);
        }
    }

    /** The errno that this thread's last call left. */
    static int errno() {
        return STATE.get().get(JAVA_INT, ERRNO);
    }

    static int check(String call, int result) throws Failure {
        if (result < 0) {
            throw new Failure(call, errno());
        }
        return result;
    }
}
