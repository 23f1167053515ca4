package io.portcullis.owner.kernel;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Lists the TCP LISTEN sockets on one port, both families; and the bound UDP sockets, which a
 * datagram to that port could reach, in the same shape.
 */
@FunctionalInterface
public interface ListenerSource {

    List<TcpListener> listening(int port) throws IOException;

    /**
     * The UDP sockets bound to {@code port}, both families, connected or not. A source that reads
     * no UDP sockets fails, so a caller refuses rather than finding nobody.
     */
    default List<TcpListener> udp(int port) throws IOException {
        throw new IOException("this listener source reads no UDP sockets");
    }

    /**
     * Netlink sock_diag when this kernel answers it, else the {@code /proc/net} tables of
     * {@code root}; for TCP and for UDP apart (UDP needs the kernel's {@code udp_diag}). Decided
     * once, so a later netlink failure is an error, not a silent fallback.
     */
    static ListenerSource system(ProcRoot root) {
        SockDiag diag = new SockDiag();
        ListenerSource proc = procNet(root);
        ListenerSource tcp = answers(() -> diag.listening(1)) ? diag : proc;
        ListenerSource udp = answers(() -> diag.udp(1)) ? diag : proc;
        if (tcp == udp) {
            return tcp;
        }
        return new ListenerSource() {
            @Override
            public List<TcpListener> listening(int port) throws IOException {
                return tcp.listening(port);
            }

            @Override
            public List<TcpListener> udp(int port) throws IOException {
                return udp.udp(port);
            }
        };
    }

    /** The {@code net/tcp}, {@code tcp6}, {@code udp} and {@code udp6} tables of {@code root}: no V6ONLY, no device. */
    static ListenerSource procNet(ProcRoot root) {
        return new ProcNetTcp(root);
    }

    /** Whether one call to the kernel answers. */
    private static boolean answers(Callable<?> probe) {
        try {
            probe.call();
            return true;
        } catch (Exception | LinkageError e) {
            return false;
        }
    }
}
