package io.portcullis.owner.kernel;

import java.io.IOException;
import java.util.List;

/** Lists the TCP LISTEN sockets on one port, both families. */
@FunctionalInterface
public interface ListenerSource {

    List<TcpListener> listening(int port) throws IOException;

    /**
     * Netlink sock_diag when this kernel answers it, else the {@code /proc/net/tcp} tables of
     * {@code root}. Decided once, so a later netlink failure is an error, not a silent fallback.
     */
    static ListenerSource system(ProcRoot root) {
        SockDiag diag = new SockDiag();
        try {
            diag.listening(1);
            return diag;
        } catch (IOException | RuntimeException | LinkageError e) {
            return procNet(root);
        }
    }

    /** The {@code net/tcp} and {@code net/tcp6} tables of {@code root}: no V6ONLY, no device. */
    static ListenerSource procNet(ProcRoot root) {
        return new ProcNetTcp(root);
    }
}
