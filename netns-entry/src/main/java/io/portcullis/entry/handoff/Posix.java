package io.portcullis.entry.handoff;

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
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The few Linux system calls of the hand-over (SPEC R4), through the JDK's FFM API: listening
 * sockets, a unix socket with SCM_RIGHTS both ways, the facts the relay checks about a received
 * socket, and execve for the entry becoming its command (R21). Linux x86_64 and aarch64 with
 * glibc: the struct layouts below are those of LP64 Linux.
 */
@SuppressWarnings("restricted")
public final class Posix {
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_TYPE = 3;
    static final int SO_RCVTIMEO = 20;
    static final int SO_ACCEPTCONN = 30;
    static final int SO_PROTOCOL = 38;
    static final int SO_DOMAIN = 39;
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
    static final int FD_CLOEXEC = 1;
    static final int O_NONBLOCK = 0x800;
    static final long SIOCGSKNS = 0x894C;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EACCES = 13;
    public static final int ENOEXEC = 8;
    static final int CLOSE_RANGE_CLOEXEC = 4;
    static final int SIG_SETMASK = 2;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_UDP = 17;

    /** The most descriptors one SCM_RIGHTS message carries (the kernel's SCM_MAX_FD). */
    public static final int MAX_FDS = 253;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle SOCKET = call("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle SETSOCKOPT =
            call("setsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle GETSOCKOPT =
            call("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle ACCEPT = call("accept4", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    private static final MethodHandle BIND = call("bind", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle LISTEN = call("listen", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle CONNECT = call("connect", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle GETSOCKNAME = call("getsockname", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SENDMSG = call("sendmsg", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle RECVMSG = call("recvmsg", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle SEND = call("send", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle POLL = call("poll", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle CLOSE = call("close", JAVA_INT, JAVA_INT);
    private static final MethodHandle OPEN = variadic("open", 2, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle SETNS = call("setns", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle SHUTDOWN = call("shutdown", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle FCNTL = variadic("fcntl", 2, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle IOCTL = call("ioctl", JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle CLOSE_RANGE = call("close_range", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle SIGPROCMASK = call("sigprocmask", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SIGACTION = call("sigaction", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SYSCALL =
            variadic("syscall", 1, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
    private static final MethodHandle EXECVE = call("execve", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle STRERROR = plain("strerror", ADDRESS, JAVA_INT);

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
        int fd = check("socket", invoke(SOCKET, v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            setInt(arena, fd, SOL_SOCKET, SO_REUSEADDR, 1);
            if (v6) {
                setInt(arena, fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
            }
            MemorySegment sockaddr = sockaddr(arena, address);
            check("bind", invoke(BIND, fd, sockaddr, (int) sockaddr.byteSize()));
            if (backlog >= 0) {
                check("listen", invoke(LISTEN, fd, backlog));
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
        int fd = check("socket", invoke(SOCKET, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timeout = arena.allocate(16);
            timeout.set(JAVA_LONG, 0, timeoutMillis / 1000);
            timeout.set(JAVA_LONG, 8, (timeoutMillis % 1000) * 1000L);
            check("setsockopt", invoke(SETSOCKOPT, fd, SOL_SOCKET, SO_RCVTIMEO, timeout, 16));
            check("connect " + path, invoke(CONNECT, fd, unixAddress(arena, bytes), 2 + bytes.length + 1));
            return fd;
        } catch (Failure e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /** A unix stream socket listening at {@code path}, close-on-exec: the relay's side, for tests of the entry. */
    public static int listenUnix(String path, int backlog) throws Failure {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        int fd = check("socket", invoke(SOCKET, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        try (Arena arena = Arena.ofConfined()) {
            check("bind " + path, invoke(BIND, fd, unixAddress(arena, bytes), 2 + bytes.length + 1));
            check("listen", invoke(LISTEN, fd, backlog));
            return fd;
        } catch (Failure e) {
            closeQuietly(fd);
            throw e;
        }
    }

    /** The next connection of a listening socket, non-blocking and close-on-exec; blocks until there is one. */
    public static int accept(int fd) throws Failure {
        return check("accept", invoke(ACCEPT, fd, MemorySegment.NULL, MemorySegment.NULL, SOCK_CLOEXEC | 0x800));
    }

    /** The pid of a unix socket's peer (SO_PEERCRED). */
    public static long peerPid(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment credentials = arena.allocate(12);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 12);
            check("getsockopt SO_PEERCRED", invoke(GETSOCKOPT, fd, SOL_SOCKET, 17, credentials, length));
            return credentials.get(JAVA_INT, 0);
        }
    }

    /** Sends {@code data} with {@code fds} attached in one message. */
    public static void sendWithFds(int socket, byte[] data, int[] fds) throws Failure {
        if (fds.length > MAX_FDS) {
            throw new IllegalArgumentException("fds: " + fds.length + " (expected: at most " + MAX_FDS + ")");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            MemorySegment control = MemorySegment.NULL;
            long controlLength = 0;
            if (fds.length > 0) {
                controlLength = cmsgSpace(4L * fds.length);
                control = arena.allocate(controlLength, 8);
                control.set(JAVA_LONG, 0, 16 + 4L * fds.length);
                control.set(JAVA_INT, 8, SOL_SOCKET);
                control.set(JAVA_INT, 12, SCM_RIGHTS);
                for (int i = 0; i < fds.length; i++) {
                    control.set(JAVA_INT, 16 + 4L * i, fds[i]);
                }
            }
            MemorySegment message = message(arena, buffer, control, controlLength);
            long sent = invokeLong(SENDMSG, socket, message, MSG_NOSIGNAL);
            if (sent < 0) {
                throw new Failure("sendmsg", errno());
            }
            if (sent < data.length) {
                sendAll(socket, data, (int) sent);
            }
        }
    }

    /** Sends all of {@code data} from {@code offset}. */
    public static void sendAll(int socket, byte[] data, int offset) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            long at = offset;
            while (at < data.length) {
                long sent = invokeLong(SEND, socket, buffer.asSlice(at), data.length - at, MSG_NOSIGNAL);
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
            long got = invokeLong(RECVMSG, socket, message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
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
            int ready = invoke(POLL, pollfd, 1L, millis);
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
            check("getsockopt", invoke(GETSOCKOPT, fd, level, name, value, length));
            return value.get(JAVA_INT, 0);
        }
    }

    /** The address a socket is bound to; empty when it is not an IPv4 or IPv6 socket. */
    public static Optional<InetSocketAddress> localAddress(int fd) throws Failure {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = arena.allocate(128);
            MemorySegment length = arena.allocate(4);
            length.set(JAVA_INT, 0, 128);
            check("getsockname", invoke(GETSOCKNAME, fd, sockaddr, length));
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

    /** A new descriptor for the network namespace of the socket {@code fd} (SIOCGSKNS). */
    public static int namespaceOf(int fd) throws Failure {
        return check("ioctl SIOCGSKNS", invoke(IOCTL, fd, SIOCGSKNS));
    }

    /** Makes {@code fd} non-blocking. */
    public static void nonBlocking(int fd) throws Failure {
        int flags = check("fcntl", invoke(FCNTL, fd, F_GETFL, 0));
        check("fcntl", invoke(FCNTL, fd, F_SETFL, flags | O_NONBLOCK));
    }

    /** Marks {@code fd} close-on-exec. */
    static void closeOnExec(int fd) throws Failure {
        check("fcntl", invoke(FCNTL, fd, F_SETFD, FD_CLOEXEC));
    }

    /**
     * Moves the calling thread (only it) into the network namespace at {@code path}, such as
     * {@code /proc/PID/ns/net}: the sockets it makes from then on are that namespace's. For tests
     * that play a program inside a spawn's namespace.
     */
    public static void enterNetworkNamespace(String path) throws Failure {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = check("open " + path, invoke(OPEN, arena.allocateFrom(path), 0x80000));
        }
        try {
            check("setns " + path, invoke(SETNS, fd, 0x40000000));
        } finally {
            closeQuietly(fd);
        }
    }

    /** Shuts a socket down both ways; a thread blocked in accept on it returns. */
    public static void shutdownQuietly(int fd) {
        invoke(SHUTDOWN, fd, 2);
    }

    public static void close(int fd) throws Failure {
        check("close", invoke(CLOSE, fd));
    }

    /** Closes, ignoring a failure: the descriptor is released either way. */
    public static void closeQuietly(int fd) {
        invoke(CLOSE, fd);
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
        if (invoke(CLOSE_RANGE, 3, -1, CLOSE_RANGE_CLOEXEC) == 0) {
            return;
        }
        try (var listing = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            for (int fd : listing.map(
                            path -> Integer.parseInt(path.getFileName().toString()))
                    .filter(fd -> fd > 2)
                    .toList()) {
                if (invoke(FCNTL, fd, F_SETFD, FD_CLOEXEC) < 0 && errno() != 9) {
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
            MemorySegment empty = arena.allocate(128);
            check("sigprocmask", invoke(SIGPROCMASK, SIG_SETMASK, empty, MemorySegment.NULL));
            // struct sigaction is 152 bytes on LP64 Linux; sa_handler comes first.
            MemorySegment old = arena.allocate(152, 8);
            MemorySegment dfl = arena.allocate(152, 8);
            for (int signal = 1; signal < 65; signal++) {
                if (signal == 9 || signal == 19) {
                    continue;
                }
                if (invoke(SIGACTION, signal, MemorySegment.NULL, old) != 0) {
                    // glibc keeps 32 and 33 for itself; the kernel still passes them on ignored
                    defaultRaw(arena, signal);
                } else if (old.get(JAVA_LONG, 0) == 1L) { // SIG_IGN
                    check("sigaction", invoke(SIGACTION, signal, dfl, MemorySegment.NULL));
                }
            }
        }
    }

    /** rt_sigaction(2) itself, with the kernel's struct (handler, flags, restorer, mask: all 0 is SIG_DFL). */
    private static void defaultRaw(Arena arena, int signal) throws Failure {
        long number = System.getProperty("os.arch").equals("aarch64") ? 134 : 13;
        MemorySegment dfl = arena.allocate(32, 8);
        if (invokeLong(SYSCALL, number, signal, dfl, MemorySegment.NULL, 8L) != 0) {
            throw new Failure("rt_sigaction " + signal, errno());
        }
    }

    /** Replaces this process with {@code path}; returns only by throwing when execve failed. */
    public static Failure execve(String path, List<String> argv, List<String> environment) {
        try (Arena arena = Arena.ofConfined()) {
            invoke(EXECVE, arena.allocateFrom(path), strings(arena, argv), strings(arena, environment));
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

    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0);
        } catch (Throwable e) {
            return "errno " + errno;
        }
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
        check("setsockopt", invoke(SETSOCKOPT, fd, level, name, option, 4));
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

    static int invoke(MethodHandle handle, Object... args) {
        return (int) invokeRaw(handle, args);
    }

    static long invokeLong(MethodHandle handle, Object... args) {
        return (long) invokeRaw(handle, args);
    }

    private static Object invokeRaw(MethodHandle handle, Object... args) {
        MemorySegment state = STATE.get();
        Object[] all = new Object[args.length + 1];
        all[0] = state;
        System.arraycopy(args, 0, all, 1, args.length);
        try {
            return handle.invokeWithArguments(all);
        } catch (Throwable e) {
            throw new IllegalStateException("native call failed: " + e, e);
        }
    }

    /** The errno that this thread's last call left. */
    static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    static int check(String call, int result) throws Failure {
        if (result < 0) {
            throw new Failure(call, errno());
        }
        return result;
    }

    private static MethodHandle call(String name, MemoryLayout result, MemoryLayout... args) {
        return LINKER.downcallHandle(
                LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)),
                FunctionDescriptor.of(result, args),
                Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle variadic(String name, int fixed, MemoryLayout result, MemoryLayout... args) {
        return LINKER.downcallHandle(
                LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)),
                FunctionDescriptor.of(result, args),
                Linker.Option.firstVariadicArg(fixed),
                Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle plain(String name, MemoryLayout result, MemoryLayout... args) {
        return LINKER.downcallHandle(
                LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)),
                FunctionDescriptor.of(result, args));
    }
}
