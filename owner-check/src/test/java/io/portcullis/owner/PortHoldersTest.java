package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.testing.PythonListener;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Who holds a port of this host (R25, R30), read from the real kernel with real sockets under other uids. */
class PortHoldersTest {
    private static final int OTHER_UID = 4210;
    private final PortHolders holders = OwnerChecks.portHolders(Duration.ZERO);

    private PortHolders.Holders ask(PortHolders.Protocol protocol, String address, int port) throws Exception {
        return holders.holders(protocol, InetAddress.ofLiteral(address), port).get(10, TimeUnit.SECONDS);
    }

    private static List<Integer> uids(PortHolders.Holders found) {
        return found.sockets().stream().map(OwnerEvidence.Listener::uid).toList();
    }

    /** Each address a connection or datagram to the socket's port could be sent to, in any spelling. */
    @ParameterizedTest(name = "{0} {1} asked as {2} -> {3}")
    @CsvSource({
        "TCP, 127.0.0.1, 127.0.0.1,        held",
        "TCP, 127.0.0.1, ::ffff:127.0.0.1, held",
        "TCP, 127.0.0.1, ::127.0.0.1,      held",
        "TCP, 127.0.0.1, 0.0.0.0,          held",
        "TCP, 127.0.0.1, 127.0.0.2,        free",
        "TCP, 0.0.0.0,   127.0.0.9,        held",
        "UDP, 127.0.0.1, 127.0.0.1,        held",
        "UDP, 127.0.0.1, ::ffff:127.0.0.1, held",
        "UDP, 127.0.0.1, 127.0.0.2,        free",
        "UDP, 0.0.0.0,   127.0.0.9,        held",
    })
    void aSocketOfAnotherUidIsFoundWithItsUid(String protocol, String bound, String asked, String expected)
            throws Exception {
        PythonListener.Builder shape = PythonListener.v4(bound).uid(OTHER_UID);
        PortHolders.Protocol kind = PortHolders.Protocol.valueOf(protocol);
        try (PythonListener socket = (kind == PortHolders.Protocol.UDP ? shape.udp() : shape).start()) {
            PortHolders.Holders found = ask(kind, asked, socket.port());
            assertEquals(expected.equals("held") ? List.of(OTHER_UID) : List.of(), uids(found), found.toString());
            PortHolders.Protocol other =
                    kind == PortHolders.Protocol.UDP ? PortHolders.Protocol.TCP : PortHolders.Protocol.UDP;
            assertEquals(List.of(), ask(other, asked, socket.port()).sockets(), "the other protocol's port is free");
        }
    }

    @Test
    void aPortBelowTheUnprivilegedStartIsPrivileged() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        assertTrue(ask(PortHolders.Protocol.UDP, "127.0.0.1", 1).privilegedPort());
        assertFalse(ask(PortHolders.Protocol.TCP, "127.0.0.1", free).privilegedPort());
    }

    @Test
    void withAWindowAnAnswerIsReusedAndWithoutOneAPortChangingHandsIsSeen() throws Exception {
        PortHolders cached = OwnerChecks.portHolders(Duration.ofMinutes(1));
        InetAddress loopback = InetAddress.ofLiteral("127.0.0.1");
        PythonListener first = PythonListener.v4("127.0.0.1").udp().start();
        int port = first.port();
        try {
            assertEquals(
                    List.of(0),
                    uids(cached.holders(PortHolders.Protocol.UDP, loopback, port)
                            .get(10, TimeUnit.SECONDS)));
        } finally {
            first.close();
        }
        try (PythonListener second =
                PythonListener.v4("127.0.0.1").port(port).udp().uid(OTHER_UID).start()) {
            assertEquals(
                    List.of(0),
                    uids(cached.holders(PortHolders.Protocol.UDP, loopback, port)
                            .get(10, TimeUnit.SECONDS)),
                    "within the window");
            assertEquals(List.of(OTHER_UID), uids(ask(PortHolders.Protocol.UDP, "127.0.0.1", second.port())));
        }
    }
}
