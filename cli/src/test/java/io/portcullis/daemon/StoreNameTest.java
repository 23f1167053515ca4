package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.portcullis.wire.Handoff;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The names of a spawn's sockets in the descriptor store: one spelling per socket, read back as that socket. */
class StoreNameTest {

    @ParameterizedTest(name = "{0} {1} {2}:{3} -> {4}")
    @CsvSource({
        "bot-1, PROXY, 127.0.0.1, 39080, bot-1/proxy/127.0.0.1/39080",
        "bot-1, PROXY, ::1, 39080, bot-1/proxy/0-0-0-0-0-0-0-1/39080",
        "a.b_c-9, DNS, 127.0.0.1, 53, a.b_c-9/dns/127.0.0.1/53",
        "x, NAMED, 127.77.0.2, 5432, x/named/127.77.0.2/5432",
        "x, DOOR, 127.0.0.1, 3001, x/door/127.0.0.1/3001",
        "x, FORWARD, ::1, 6379, x/forward/0-0-0-0-0-0-0-1/6379",
    })
    void aSocketHasOneNameAndTheNameReadsBackAsIt(String id, Handoff.Kind kind, String address, int port, String text)
            throws Exception {
        StoreName name = new StoreName(
                id, new Handoff.Socket(kind, new InetSocketAddress(InetAddress.ofLiteral(address), port)));

        assertEquals(text, name.text());
        assertEquals(name, StoreName.parse(text).orElseThrow());
    }

    @Test
    void theLongestIdWithTheLongestSocketFitsTheManagersLimit() {
        String id = "a".repeat(128);
        StoreName name = new StoreName(
                id, new Handoff.Socket(Handoff.Kind.FORWARD, new InetSocketAddress(Handoff.IPV6_LOOPBACK, 65535)));

        assertEquals(
                128 + "/forward/0-0-0-0-0-0-0-1/65535".length(), name.text().length());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "unknown",
                "stored",
                "bot-1/proxy/127.0.0.1",
                "bot-1/proxy/127.0.0.1/39080/x",
                "/proxy/127.0.0.1/39080",
                "bot-1/relay/127.0.0.1/39080",
                "bot-1/proxy/localhost/39080",
                "bot-1/proxy/127.000.0.1/39080",
                "bot-1/proxy/--1/39080",
                "bot-1/proxy/127.0.0.1/0",
                "bot-1/proxy/127.0.0.1/65536",
                "bot-1/proxy/127.0.0.1/+80",
                "bot-1/proxy/127.0.0.1/039080",
                "bot-1/proxy/1.2.3.4.5/80",
            })
    void aNameThisDaemonDoesNotWriteIsNoSocketOfASpawn(String name) {
        assertFalse(StoreName.parse(name).isPresent());
    }
}
