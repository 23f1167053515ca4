package io.portcullis.owner.kernel;

import io.portcullis.wire.Posix;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the kernel for the TCP LISTEN sockets, or the bound UDP sockets, on one port through
 * NETLINK_SOCK_DIAG (inet_diag, udp_diag), using the FFM API. The state and the source port are
 * filtered in the kernel; the port is checked again here. The system calls are wire's {@link Posix},
 * whose one downcall handle the relay has linked already: a handle of its own per call took tens of
 * milliseconds of every relay's start.
 */
final class SockDiag implements ListenerSource {
    private static final int NETLINK_SOCK_DIAG = 4;
    private static final int IPPROTO_TCP = 6;
    private static final int RECV_BUFFER = 64 * 1024;

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
            int fd = Posix.netlinkSocket(NETLINK_SOCK_DIAG);
            try {
                MemorySegment buffer = arena.allocate(RECV_BUFFER, 8);
                int seq = 1;
                for (byte family : new byte[] {InetDiag.AF_INET, InetDiag.AF_INET6}) {
                    ByteBuffer request = udp
                            ? InetDiag.udpRequest(family, port, seq)
                            : InetDiag.request(family, IPPROTO_TCP, port, seq);
                    long sent = Posix.sendToKernel(fd, request);
                    if (sent != request.remaining()) {
                        throw new IOException("sock_diag: short send " + sent + " of " + request.remaining());
                    }
                    receive(fd, buffer, seq++, port, udp, found);
                }
            } finally {
                Posix.closeQuietly(fd);
            }
        } catch (IllegalStateException e) {
            // The native call itself failed (Posix's wrapper): a failed dump, as a failed system call is.
            throw new IOException("sock_diag: " + e.getMessage(), e);
        }
        return found;
    }

    private static void receive(int fd, MemorySegment buffer, int seq, int port, boolean udp, List<TcpListener> into)
            throws IOException {
        while (true) {
            int length = Posix.read(fd, buffer);
            ByteBuffer bytes = buffer.asSlice(0, length).asByteBuffer().order(ByteOrder.nativeOrder());
            if (udp ? InetDiag.parseUdp(bytes, seq, port, into) : InetDiag.parse(bytes, seq, port, into)) {
                return;
            }
        }
    }
}
