package io.portcullis.owner.kernel;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * The inet_diag wire format: building a dump request for the TCP LISTEN sockets, or the bound UDP
 * sockets, on one port, and parsing its answers. Pure.
 */
final class InetDiag {
    static final byte AF_INET = 2;
    static final byte AF_INET6 = 10;

    private static final short SOCK_DIAG_BY_FAMILY = 20;
    private static final short NLM_F_REQUEST_DUMP = 0x1 | 0x300;
    private static final short NLMSG_ERROR = 2;
    private static final short NLMSG_DONE = 3;
    private static final int NLMSG_HDRLEN = 16;
    private static final int TCP_LISTEN = 10;
    private static final int IPPROTO_UDP = 17;
    /** Every state: a UDP socket is {@code TCP_CLOSE} unconnected and {@code TCP_ESTABLISHED} connected. */
    private static final int ALL_STATES = -1;

    private static final short INET_DIAG_REQ_BYTECODE = 1;
    private static final byte BC_S_GE = 2;
    private static final byte BC_S_LE = 3;
    private static final short INET_DIAG_SKV6ONLY = 11;
    private static final int DIAG_MSG_LEN = 72;

    private InetDiag() {}

    /** A dump request for LISTEN sockets of one family whose source port is {@code port}. */
    static ByteBuffer request(byte family, int protocol, int port, int seq) {
        return request(family, protocol, 1 << TCP_LISTEN, port, seq);
    }

    /** A dump request for the UDP sockets of one family bound to {@code port}, connected or not. */
    static ByteBuffer udpRequest(byte family, int port, int seq) {
        return request(family, IPPROTO_UDP, ALL_STATES, port, seq);
    }

    private static ByteBuffer request(byte family, int protocol, int states, int port, int seq) {
        int bytecode = 16;
        int attribute = 4 + bytecode;
        int length = NLMSG_HDRLEN + 56 + attribute;
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
        b.putInt(length)
                .putShort(SOCK_DIAG_BY_FAMILY)
                .putShort(NLM_F_REQUEST_DUMP)
                .putInt(seq)
                .putInt(0);
        b.put(family).put((byte) protocol).put((byte) 0).put((byte) 0).putInt(states);
        b.put(new byte[48]);
        b.putShort((short) attribute).putShort(INET_DIAG_REQ_BYTECODE);
        // sport >= port, else reject (jump past the end); then sport <= port, else reject.
        b.put(BC_S_GE)
                .put((byte) 8)
                .putShort((short) 20)
                .put((byte) 0)
                .put((byte) 0)
                .putShort((short) port);
        b.put(BC_S_LE)
                .put((byte) 8)
                .putShort((short) 12)
                .put((byte) 0)
                .put((byte) 0)
                .putShort((short) port);
        return b.flip();
    }

    /**
     * Parses one datagram of answers into {@code into}, keeping LISTEN sockets on {@code port}.
     *
     * @return true when the dump is done
     */
    static boolean parse(ByteBuffer bytes, int seq, int port, List<TcpListener> into) throws IOException {
        return parse(bytes, seq, port, true, into);
    }

    /**
     * Parses one datagram of answers to {@link #udpRequest} into {@code into}: every socket on
     * {@code port}, in whatever state, in the shape of a listener.
     *
     * @return true when the dump is done
     */
    static boolean parseUdp(ByteBuffer bytes, int seq, int port, List<TcpListener> into) throws IOException {
        return parse(bytes, seq, port, false, into);
    }

    private static boolean parse(ByteBuffer bytes, int seq, int port, boolean listening, List<TcpListener> into)
            throws IOException {
        bytes.order(ByteOrder.nativeOrder());
        while (bytes.remaining() >= NLMSG_HDRLEN) {
            int start = bytes.position();
            int length = bytes.getInt(start);
            short type = bytes.getShort(start + 4);
            int messageSeq = bytes.getInt(start + 8);
            if (length < NLMSG_HDRLEN || length > bytes.remaining()) {
                throw new IOException(
                        "sock_diag: message length " + length + " (expected: 16-" + bytes.remaining() + ")");
            }
            if (messageSeq != seq) {
                throw new IOException("sock_diag: sequence " + messageSeq + " (expected: " + seq + ")");
            }
            if (type == NLMSG_DONE) {
                return true;
            }
            if (type == NLMSG_ERROR) {
                String errno = length >= NLMSG_HDRLEN + 4
                        ? Integer.toString(bytes.getInt(start + NLMSG_HDRLEN))
                        : "(truncated)";
                throw new IOException("sock_diag: kernel error " + errno);
            }
            if (type == SOCK_DIAG_BY_FAMILY && length >= NLMSG_HDRLEN + DIAG_MSG_LEN) {
                TcpListener listener = listener(
                        bytes.slice(start + NLMSG_HDRLEN, length - NLMSG_HDRLEN).order(ByteOrder.nativeOrder()),
                        listening);
                if (listener.port() == port) {
                    into.add(listener);
                }
            }
            bytes.position(Math.min(bytes.limit(), start + align(length)));
        }
        return false;
    }

    private static TcpListener listener(ByteBuffer m, boolean listening) throws IOException {
        byte family = m.get(0);
        int state = m.get(1);
        if ((listening && state != TCP_LISTEN) || (family != AF_INET && family != AF_INET6)) {
            throw new IOException("sock_diag: family " + family + " state " + state + " (expected: a LISTEN socket)");
        }
        int port = Short.toUnsignedInt(m.order(ByteOrder.BIG_ENDIAN).getShort(4));
        m.order(ByteOrder.nativeOrder());
        byte[] raw = new byte[family == AF_INET ? 4 : 16];
        m.get(8, raw);
        int ifindex = m.getInt(40);
        int uid = m.getInt(64);
        long inode = Integer.toUnsignedLong(m.getInt(68));
        TcpListener.V6Only v6Only = family == AF_INET ? TcpListener.V6Only.OFF : v6Only(m);
        return Addresses.listener(
                family == AF_INET ? TcpListener.Family.INET : TcpListener.Family.INET6,
                raw,
                port,
                uid,
                inode,
                v6Only,
                ifindex);
    }

    /**
     * The INET_DIAG_SKV6ONLY attribute of an INET6 socket. The kernel always sends it; when it is
     * missing or the attributes are malformed, V6ONLY is unknown, and the judge then counts both
     * ways (a missing attribute once read as "dual-stack" let a V6ONLY {@code ::} answer IPv4).
     */
    private static TcpListener.V6Only v6Only(ByteBuffer m) {
        int at = DIAG_MSG_LEN;
        while (at + 4 <= m.limit()) {
            int length = Short.toUnsignedInt(m.getShort(at));
            int type = m.getShort(at + 2) & 0x7fff;
            if (length < 4) {
                return TcpListener.V6Only.UNKNOWN;
            }
            if (type == INET_DIAG_SKV6ONLY && length >= 5 && at + 5 <= m.limit()) {
                return m.get(at + 4) != 0 ? TcpListener.V6Only.ON : TcpListener.V6Only.OFF;
            }
            at += align(length);
        }
        return TcpListener.V6Only.UNKNOWN;
    }

    private static int align(int length) {
        return (length + 3) & ~3;
    }

    /** Address helpers shared by the netlink and /proc readers. */
    static final class Addresses {
        private Addresses() {}

        static TcpListener listener(
                TcpListener.Family family,
                byte[] raw,
                int port,
                int uid,
                long inode,
                TcpListener.V6Only v6Only,
                int ifindex)
                throws IOException {
            try {
                boolean mapped = raw.length == 16 && isMapped(raw);
                InetAddress address = InetAddress.getByAddress(mapped ? Arrays.copyOfRange(raw, 12, 16) : raw);
                return new TcpListener(family, address, mapped, port, uid, inode, v6Only, ifindex);
            } catch (UnknownHostException e) {
                throw new IOException("address of " + raw.length + " bytes", e);
            }
        }

        private static boolean isMapped(byte[] raw) {
            for (int i = 0; i < 10; i++) {
                if (raw[i] != 0) {
                    return false;
                }
            }
            return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
        }
    }
}
