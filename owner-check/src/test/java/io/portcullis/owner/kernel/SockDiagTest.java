package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.testing.PythonListener;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The netlink reader against real sockets of every shape, and the /proc fallback agreeing with it. */
class SockDiagTest {
    private static final int OTHER_UID = 4200;
    private final SockDiag diag = new SockDiag();
    private final ProcNetTcp proc = new ProcNetTcp(ProcRoot.SYSTEM);

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(
                        "v4 loopback",
                        PythonListener.v4("127.0.0.1"),
                        TcpListener.Family.INET,
                        "127.0.0.1",
                        false,
                        false),
                Arguments.of(
                        "v4 wildcard", PythonListener.v4("0.0.0.0"), TcpListener.Family.INET, "0.0.0.0", false, false),
                Arguments.of(
                        "v6 loopback", PythonListener.v6("::1").v6Only(), TcpListener.Family.INET6, "::1", false, true),
                Arguments.of("dual-stack ::", PythonListener.v6("::"), TcpListener.Family.INET6, "::", false, false),
                Arguments.of(
                        "v6only ::", PythonListener.v6("::").v6Only(), TcpListener.Family.INET6, "::", false, true),
                Arguments.of(
                        "v4-mapped",
                        PythonListener.v6("::ffff:127.0.0.1"),
                        TcpListener.Family.INET6,
                        "127.0.0.1",
                        true,
                        false),
                Arguments.of(
                        "another uid",
                        PythonListener.v4("127.0.0.1").uid(OTHER_UID),
                        TcpListener.Family.INET,
                        "127.0.0.1",
                        false,
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void reportsEveryShape(
            String name,
            PythonListener.Builder shape,
            TcpListener.Family family,
            String address,
            boolean mapped,
            boolean v6Only)
            throws IOException {
        try (PythonListener listener = shape.start()) {
            List<TcpListener> found = diag.listening(listener.port());
            assertEquals(1, found.size(), () -> name + ": " + found);
            TcpListener l = found.getFirst();
            assertEquals(family, l.family());
            assertEquals(InetAddress.ofLiteral(address), l.address());
            assertEquals(mapped, l.mapped());
            TcpListener.V6Only expected = v6Only ? TcpListener.V6Only.ON : TcpListener.V6Only.OFF;
            assertEquals(expected, l.v6Only(), "sock_diag reads V6ONLY (INET_DIAG_SKV6ONLY)");
            assertEquals(0, l.ifindex());
            assertEquals(name.equals("another uid") ? OTHER_UID : 0, l.uid());
            assertTrue(l.inode() > 0);
            assertEquals(withoutKernelOnlyFields(found), withoutKernelOnlyFields(proc.listening(listener.port())));
        }
    }

    /**
     * Bound UDP sockets of every shape (udp_diag), with their uid, and the {@code /proc/net/udp}
     * fallback agreeing; a UDP socket is not a TCP listener, nor the other way round.
     */
    @ParameterizedTest(name = "udp {0}")
    @MethodSource("shapes")
    void reportsEveryBoundUdpSocket(
            String name,
            PythonListener.Builder shape,
            TcpListener.Family family,
            String address,
            boolean mapped,
            boolean v6Only)
            throws IOException {
        try (PythonListener socket = shape.udp().start()) {
            List<TcpListener> found = diag.udp(socket.port());
            assertEquals(1, found.size(), () -> name + ": " + found);
            TcpListener l = found.getFirst();
            assertEquals(family, l.family());
            assertEquals(InetAddress.ofLiteral(address), l.address());
            assertEquals(mapped, l.mapped());
            assertEquals(v6Only ? TcpListener.V6Only.ON : TcpListener.V6Only.OFF, l.v6Only());
            assertEquals(name.equals("another uid") ? OTHER_UID : 0, l.uid());
            assertEquals(withoutKernelOnlyFields(found), withoutKernelOnlyFields(proc.udp(socket.port())));
            assertEquals(List.of(), diag.listening(socket.port()), "a UDP socket is no TCP listener");
        }
    }

    @Test
    void aTcpListenerIsNoUdpSocket() throws IOException {
        try (PythonListener listener = PythonListener.v4("127.0.0.1").start()) {
            assertEquals(List.of(), diag.udp(listener.port()));
            assertEquals(List.of(), proc.udp(listener.port()));
        }
    }

    @Test
    void reportsTheBoundDevice() throws IOException {
        try (PythonListener listener =
                PythonListener.v4("127.0.0.1").device("lo").start()) {
            TcpListener l = diag.listening(listener.port()).getFirst();
            assertEquals(java.net.NetworkInterface.getByName("lo").getIndex(), l.ifindex());
        }
    }

    @Test
    void reportsBothSocketsOfAReusePortPair() throws IOException {
        try (PythonListener first = PythonListener.v4("127.0.0.1")
                        .reusePort()
                        .uid(OTHER_UID)
                        .start();
                PythonListener second = PythonListener.v4("127.0.0.1")
                        .port(first.port())
                        .reusePort()
                        .uid(OTHER_UID)
                        .start()) {
            List<TcpListener> found = diag.listening(first.port());
            assertEquals(2, found.size(), found::toString);
            assertEquals(
                    2, found.stream().mapToLong(TcpListener::inode).distinct().count());
            assertEquals(first.port(), second.port());
        }
    }

    @Test
    void findsOnlyTheAskedPortAmongOthersInThisJvm() throws IOException {
        try (ServerSocket a = listen();
                ServerSocket b = listen()) {
            List<TcpListener> found = diag.listening(a.getLocalPort());
            assertEquals(1, found.size(), found::toString);
            assertEquals(a.getLocalPort(), found.getFirst().port());
            assertTrue(diag.listening(b.getLocalPort()).stream().allMatch(l -> l.port() == b.getLocalPort()));
        }
    }

    @Test
    void findsNothingOnAFreePort() throws IOException {
        int port;
        try (ServerSocket s = listen()) {
            port = s.getLocalPort();
        }
        assertEquals(List.of(), diag.listening(port));
    }

    private static ServerSocket listen() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setOption(StandardSocketOptions.SO_REUSEADDR, false);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return s;
    }

    /** /proc shows neither V6ONLY nor the device. */
    private static List<String> withoutKernelOnlyFields(List<TcpListener> listeners) {
        return listeners.stream()
                .sorted(Comparator.comparingLong(TcpListener::inode))
                .map(l -> l.family() + " " + l.address() + " " + l.mapped() + " " + l.port() + " " + l.uid() + " "
                        + l.inode())
                .toList();
    }
}
