package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The hand-over header has one spelling for each list of sockets. */
class HandoffTest {
    private static final String MAGIC_AND_ONE = "5043483101";

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "010498a87f000001000000000000000000000000", // proxy 127.0.0.1:39080
                "011098a800000000000000000000000000000001", // proxy [::1]:39080
            })
    void aHeaderTheEntryWritesDecodesAndEncodesToItself(String entry) throws Handoff.Malformed {
        byte[] bytes = HexFormat.of().parseHex(MAGIC_AND_ONE + entry);

        assertArrayEquals(bytes, Handoff.decode(bytes).encode());
    }

    /** Found by HandoffFuzzTest: {@code ::ffff:127.0.0.1} in 16 bytes decoded as 127.0.0.1. */
    @Test
    void anIpv4MappedAddressInSixteenBytesIsMalformed() {
        byte[] bytes = HexFormat.of().parseHex(MAGIC_AND_ONE + "011098a800000000000000000000ffff7f000001");

        Handoff.Malformed refused = assertThrows(Handoff.Malformed.class, () -> Handoff.decode(bytes));
        assertEquals("socket 0: an IPv4-mapped address in 16 bytes (expected: IPv4 in 4 bytes)", refused.getMessage());
    }

    @Test
    void theSameSocketInFourBytesIsTheOneSpelling() throws Handoff.Malformed {
        Handoff proxy = new Handoff(
                List.of(new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 39080))));

        assertEquals(proxy, Handoff.decode(proxy.encode()));
        assertEquals(
                MAGIC_AND_ONE + "010498a87f000001000000000000000000000000",
                HexFormat.of().formatHex(proxy.encode()));
    }
}
