package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The inet_diag wire format, built and parsed without a kernel. */
class InetDiagTest {
    private static final int SEQ = 7;

    @Test
    void asksForListenSocketsOfOnePortWithAKernelFilter() {
        ByteBuffer r = InetDiag.request(InetDiag.AF_INET6, 6, 8080, SEQ);
        assertEquals(92, r.remaining());
        assertEquals(92, r.getInt(0));
        assertEquals(20, r.getShort(4));
        assertEquals(0x301, r.getShort(6));
        assertEquals(SEQ, r.getInt(8));
        assertEquals(InetDiag.AF_INET6, r.get(16));
        assertEquals(6, r.get(17));
        assertEquals(1 << 10, r.getInt(20));
        assertEquals(20, r.getShort(72), "bytecode attribute length");
        assertEquals(1, r.getShort(74), "INET_DIAG_REQ_BYTECODE");
        assertEquals(8080, Short.toUnsignedInt(r.getShort(82)), "S_GE port");
        assertEquals(8080, Short.toUnsignedInt(r.getShort(90)), "S_LE port");
    }

    @Test
    void parsesAListenerWithItsV6OnlyAttribute() throws IOException {
        ByteBuffer answer = datagram(message(10, "::1", 8080, 4100, 99, 1, true), done());
        List<TcpListener> found = new ArrayList<>();
        assertTrue(InetDiag.parse(answer, SEQ, 8080, found));
        assertEquals(
                List.of(new TcpListener(
                        TcpListener.Family.INET6,
                        InetAddress.ofLiteral("::1"),
                        false,
                        8080,
                        4100,
                        99,
                        TcpListener.V6Only.ON,
                        1)),
                found);
    }

    /** Regression: a missing attribute was read as V6ONLY off, so such a :: answered IPv4 for sure. */
    @Test
    void anInet6ListenerWithoutTheV6OnlyAttributeIsUnknown() throws IOException {
        ByteBuffer withAttribute = message(10, "::", 8080, 0, 7, 0, true);
        ByteBuffer without = ByteBuffer.allocate(16 + 72).order(ByteOrder.nativeOrder());
        without.put(withAttribute.flip().limit(16 + 72)).putInt(0, 16 + 72);
        List<TcpListener> found = new ArrayList<>();
        assertTrue(InetDiag.parse(datagram(without, done()), SEQ, 8080, found));
        assertEquals(TcpListener.V6Only.UNKNOWN, found.getFirst().v6Only());
    }

    @Test
    void anInetListenerIsNeverV6Only() throws IOException {
        List<TcpListener> found = new ArrayList<>();
        assertTrue(InetDiag.parse(datagram(message(2, "0.0.0.0", 8080, 0, 8, 0, false), done()), SEQ, 8080, found));
        assertEquals(TcpListener.V6Only.OFF, found.getFirst().v6Only());
    }

    @Test
    void keepsOnlyTheAskedPortAndWaitsForDone() throws IOException {
        ByteBuffer answer =
                datagram(message(2, "127.0.0.1", 8080, 0, 5, 0, false), message(2, "127.0.0.1", 9090, 0, 6, 0, false));
        List<TcpListener> found = new ArrayList<>();
        assertFalse(InetDiag.parse(answer, SEQ, 9090, found));
        assertEquals(1, found.size());
        assertEquals(6, found.getFirst().inode());
    }

    @Test
    void aKernelErrorIsAnError() {
        ByteBuffer error = ByteBuffer.allocate(36).order(ByteOrder.nativeOrder());
        error.putInt(36)
                .putShort((short) 2)
                .putShort((short) 0)
                .putInt(SEQ)
                .putInt(0)
                .putInt(-13);
        error.position(36).flip();
        assertThrows(IOException.class, () -> InetDiag.parse(error, SEQ, 80, new ArrayList<>()));
    }

    @Test
    void anotherSequenceIsAnError() {
        assertThrows(IOException.class, () -> InetDiag.parse(datagram(done()), SEQ + 1, 80, new ArrayList<>()));
    }

    @Test
    void aTruncatedMessageIsAnError() {
        ByteBuffer whole = datagram(message(2, "127.0.0.1", 80, 0, 5, 0, false));
        ByteBuffer cut = whole.slice(0, 40).order(ByteOrder.nativeOrder());
        assertThrows(IOException.class, () -> InetDiag.parse(cut, SEQ, 80, new ArrayList<>()));
    }

    private static ByteBuffer datagram(ByteBuffer... messages) {
        ByteBuffer all = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
        for (ByteBuffer m : messages) {
            all.put(m.flip());
        }
        return all.flip();
    }

    private static ByteBuffer done() {
        ByteBuffer b = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder());
        return b.putInt(20)
                .putShort((short) 3)
                .putShort((short) 2)
                .putInt(SEQ)
                .putInt(0)
                .putInt(0);
    }

    private static ByteBuffer message(
            int family, String address, int port, int uid, int inode, int ifindex, boolean v6Only) {
        int length = 16 + 72 + (family == 10 ? 8 : 0);
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
        b.putInt(length).putShort((short) 20).putShort((short) 2).putInt(SEQ).putInt(0);
        b.put((byte) family).put((byte) 10).put((byte) 0).put((byte) 0);
        b.order(ByteOrder.BIG_ENDIAN).putShort((short) port).putShort((short) 0).order(ByteOrder.nativeOrder());
        byte[] raw = InetAddress.ofLiteral(address).getAddress();
        b.put(raw).put(new byte[16 - raw.length]).put(new byte[16]);
        b.putInt(ifindex).putLong(0);
        b.putInt(0).putInt(0).putInt(0).putInt(uid).putInt(inode);
        if (family == 10) {
            b.putShort((short) 5)
                    .putShort((short) 11)
                    .put((byte) (v6Only ? 1 : 0))
                    .put(new byte[3]);
        }
        return b;
    }
}
