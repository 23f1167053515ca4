package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hand-over header has one spelling for each key and list of sockets; these vectors are the
 * format's (docs/relay.md shows the first).
 */
class HandoffTest {
    /** The key of the vectors: bytes 0x00 to 0x1f. */
    static final String KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    private static final String MAGIC_KEY_AND_ONE = "50434832" + KEY + "01";

    static Handoff.Key key() {
        return Handoff.Key.parse(KEY);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "010498a87f000001000000000000000000000000", // proxy 127.0.0.1:39080
                "011098a800000000000000000000000000000001", // proxy [::1]:39080
            })
    void aHeaderTheEntryWritesDecodesAndEncodesToItself(String entry) throws Handoff.Malformed {
        byte[] bytes = HexFormat.of().parseHex(MAGIC_KEY_AND_ONE + entry);

        Handoff handoff = Handoff.decode(bytes);

        assertArrayEquals(bytes, handoff.encode());
        assertEquals(key(), handoff.key());
    }

    /** Found by HandoffFuzzTest: {@code ::ffff:127.0.0.1} in 16 bytes decoded as 127.0.0.1. */
    @Test
    void anIpv4MappedAddressInSixteenBytesIsMalformed() {
        byte[] bytes = HexFormat.of().parseHex(MAGIC_KEY_AND_ONE + "011098a800000000000000000000ffff7f000001");

        Handoff.Malformed refused = assertThrows(Handoff.Malformed.class, () -> Handoff.decode(bytes));
        assertEquals("socket 0: an IPv4-mapped address in 16 bytes (expected: IPv4 in 4 bytes)", refused.getMessage());
    }

    @Test
    void theSameSocketInFourBytesIsTheOneSpelling() throws Handoff.Malformed {
        Handoff proxy = new Handoff(
                key(),
                List.of(new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 39080))));

        assertEquals(proxy, Handoff.decode(proxy.encode()));
        assertEquals(
                MAGIC_KEY_AND_ONE + "010498a87f000001000000000000000000000000",
                HexFormat.of().formatHex(proxy.encode()));
    }

    /** The previous format (PCH1, no key) is not a hand-over: an entry of an older build is refused. */
    @Test
    void aHeaderWithoutAKeyIsNoHandOver() {
        byte[] old = HexFormat.of().parseHex("5043483101010498a87f000001000000000000000000000000");

        assertEquals(java.util.Optional.empty(), Handoff.length(old));
        assertFalse(Handoff.keyed(old, key()));
        assertThrows(Handoff.Malformed.class, () -> Handoff.decode(old));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "the vectors' key, true",
        "its last byte changed, false",
        "its first byte changed, false",
        "another magic, false",
        "cut before its end, false",
    })
    void aMessageIsKeyedOnlyByTheWholeSameKey(String start, boolean keyed) {
        String hex = "50434832" + KEY;
        String variant = switch (start) {
            case "its last byte changed" -> hex.substring(0, hex.length() - 2) + "1e";
            case "its first byte changed" -> "50434832ff" + KEY.substring(2);
            case "another magic" -> "50434831" + KEY;
            case "cut before its end" -> hex.substring(0, hex.length() - 2);
            default -> hex;
        };

        assertEquals(keyed, Handoff.keyed(HexFormat.of().parseHex(variant), key()));
    }

    @Test
    void aKeyIsWrittenInHexAndReadBackInEitherCase() {
        Handoff.Key minted = Handoff.Key.mint(new SecureRandom());

        assertEquals(64, minted.text().length());
        assertTrue(minted.text().matches("[0-9a-f]{64}"), minted.text());
        assertEquals(minted, Handoff.Key.parse(minted.text()));
        assertEquals(minted, Handoff.Key.parse(minted.text().toUpperCase(java.util.Locale.ROOT)));
        assertNotEquals(minted, Handoff.Key.mint(new SecureRandom()));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "'', 0 characters (expected: 64 hex digits)",
        "0123, 4 characters (expected: 64 hex digits)",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fz, 65 characters (expected: 64 hex digits)",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g, a character that is not a hex digit"
                + " (expected: 64 hex digits)",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1١, a character that is not a hex digit"
                + " (expected: 64 hex digits)",
    })
    void aKeyThatIsNotSixtyFourHexDigitsIsRefusedWithoutRepeatingIt(String text, String message) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Handoff.Key.parse(text));

        assertEquals(message, refused.getMessage());
    }

    @Test
    void aKeyNeverShowsInText() {
        Handoff handoff = new Handoff(
                key(),
                List.of(new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 39080))));

        assertEquals("Key[hidden]", key().toString());
        assertFalse(handoff.toString().contains(KEY), handoff.toString());
        assertFalse(handoff.toString().contains("0, 1, 2"), handoff.toString());
    }
}
