package io.portcullis.owner.kernel;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the kernel for the TCP LISTEN sockets, or the bound UDP sockets, on one port through
 * NETLINK_SOCK_DIAG (inet_diag, udp_diag), using the FFM API. The state and the source port are
 * filtered in the kernel; the port is checked again here.
 */
// Native calls are the point of this class; the relay runs with --enable-native-access=ALL-UNNAMED.
@SuppressWarnings("restricted")
final class SockDiag implements ListenerSource {
    private static final int AF_NETLINK = 16;
    private static final int SOCK_DGRAM_CLOEXEC = 2 | 0x80000;
    private static final int NETLINK_SOCK_DIAG = 4;
    private static final int IPPROTO_TCP = 6;
    private static final int RECV_BUFFER = 64 * 1024;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final MethodHandle SOCKET = downcall(
            "socket",
            FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SENDTO = downcall(
            "sendto",
            FunctionDescriptor.of(
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_INT));
    private static final MethodHandle RECV = downcall(
            "recv",
            FunctionDescriptor.of(
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), descriptor, CAPTURE);
    }

    @Override
    public List<TcpListener> listening(int port) throws IOException {
        return dump(port, false);
    }

    @Override
    public List<TcpListener> udp(int port) throws IOException {
        return dump(port, true);
    }

    private List<TcpListener> dump(int port, boolean udp) throws IOException {
        List<TcpListener> found = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int fd = (int) call(SOCKET, "socket", state, AF_NETLINK, SOCK_DGRAM_CLOEXEC, NETLINK_SOCK_DIAG);
            try {
                MemorySegment buffer = arena.allocate(RECV_BUFFER, 8);
                int seq = 1;
                for (byte family : new byte[] {InetDiag.AF_INET, InetDiag.AF_INET6}) {
                    send(
                            fd,
                            arena,
                            state,
                            udp
                                    ? InetDiag.udpRequest(family, port, seq)
                                    : InetDiag.request(family, IPPROTO_TCP, port, seq));
                    receive(fd, buffer, state, seq++, port, udp, found);
                }
            } finally {
                closeQuietly(fd);
            }
        }
        return found;
    }

    private static void send(int fd, Arena arena, MemorySegment state, ByteBuffer request) throws IOException {
        MemorySegment message = arena.allocate(request.remaining(), 8);
        message.asByteBuffer().put(request);
        MemorySegment kernel = arena.allocate(12, 4);
        kernel.set(ValueLayout.JAVA_SHORT, 0, (short) AF_NETLINK);
        long sent = call(SENDTO, "sendto", state, fd, message, message.byteSize(), 0, kernel, (int) kernel.byteSize());
        if (sent != message.byteSize()) {
            throw new IOException("sock_diag: short send " + sent + " of " + message.byteSize());
        }
    }

    private static void receive(
            int fd, MemorySegment buffer, MemorySegment state, int seq, int port, boolean udp, List<TcpListener> into)
            throws IOException {
        while (true) {
            long length = call(RECV, "recv", state, fd, buffer, buffer.byteSize(), 0);
            ByteBuffer bytes = buffer.asSlice(0, length).asByteBuffer().order(ByteOrder.nativeOrder());
            if (udp ? InetDiag.parseUdp(bytes, seq, port, into) : InetDiag.parse(bytes, seq, port, into)) {
                return;
            }
        }
    }

    private static long call(MethodHandle handle, String name, MemorySegment state, Object... args) throws IOException {
        Object[] all = new Object[args.length + 1];
        all[0] = state;
        System.arraycopy(args, 0, all, 1, args.length);
        long result;
        try {
            Object value = handle.invokeWithArguments(all);
            result = value instanceof Integer i ? i : (Long) value;
        } catch (Throwable t) {
            throw new IOException(name + ": " + t, t);
        }
        if (result < 0) {
            throw new IOException(name + ": errno " + (int) ERRNO.get(state, 0L));
        }
        return result;
    }

    private static void closeQuietly(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
            assert ignored >= -1;
        } catch (Throwable t) {
            throw new IllegalStateException("close: " + t, t);
        }
    }
}
