package io.portcullis.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PrefixTest {

    @ParameterizedTest(name = "{0} contains {1} -> {2}")
    @CsvSource({
        "93.184.77.0/24, 93.184.77.0, true",
        "93.184.77.0/24, 93.184.77.255, true",
        "93.184.77.0/24, 93.184.78.0, false",
        "93.184.77.0/24, 93.184.76.255, false",
        "2001:4860:77::/64, 2001:4860:77::ffff, true",
        "2001:4860:77::/64, 2001:4860:77:1::, false",
        "93.184.77.0/24, ::ffff:93.184.77.1, true",
        "0.0.0.0/0, 8.8.8.8, true",
        "2001:4860:77::/64, 93.184.77.1, false",
    })
    void contains(String prefix, String address, boolean expected) {
        assertEquals(expected, Prefix.parse(prefix).contains(LiteralAddresses.address(address)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "93.184.77.1/24 | network: 93.184.77.1/24 (expected: no host bits set)",
                "10.0.0.0/33    | length: 33 (expected: 0-32)",
                "10.0.0.0       | prefix: 10.0.0.0 (expected: address/length)",
                "example.com/24 | address: example.com (expected: an IPv4 or IPv6 literal)",
                "10.0.0.0/x     | prefix: 10.0.0.0/x (expected: address/length)",
            })
    void badPrefixesSayWhatWasExpected(String text, String message) {
        assertEquals(
                message,
                assertThrows(IllegalArgumentException.class, () -> Prefix.parse(text))
                        .getMessage());
    }

    @ParameterizedTest(name = "{0} at {1} -> {2}")
    @CsvSource({
        "93.184.77.0/24, 1, 93.184.77.1",
        "10.0.0.0/8, 256, 10.0.1.0",
        "2001:4860:77::/64, 16, 2001:4860:77::10",
    })
    void at(String prefix, int offset, String expected) {
        assertEquals(LiteralAddresses.address(expected), Prefix.parse(prefix).at(offset));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "2001:4860:77:0:0:0:0:10, 2001:4860:77::10",
        "0:0:0:0:0:0:0:1, ::1",
        "2001:db8:0:1:0:0:0:1, 2001:db8:0:1::1",
        "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
        "fe80:0:0:0:1:0:0:0, fe80::1:0:0:0",
        "1:2:3:4:5:6:0:8, 1:2:3:4:5:6:0:8",
        "0:0:0:0:0:0:0:0, ::",
        "93.184.77.10, 93.184.77.10",
    })
    void rfc5952Text(String address, String text) {
        assertEquals(text, LiteralAddresses.text(LiteralAddresses.address(address)));
    }
}
