package io.portcullis.relay.address;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LiteralsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            ::                         | ::
            ::1                        | ::1
            1::                        | 1::
            0:0:0:0:0:0:0:0            | ::
            1:0:0:2:0:0:0:3            | 1:0:0:2::3
            1:0:0:2:0:0:3:4            | 1::2:0:0:3:4
            2001:db8::0:1              | 2001:db8::1
            ABCD:EF01:2345:6789:ABCD:EF01:2345:6789 | abcd:ef01:2345:6789:abcd:ef01:2345:6789
            ::ffff:10.0.0.1            | ::ffff:10.0.0.1
            ::ffff:a00:1               | ::ffff:10.0.0.1
            ::10.0.0.1                 | ::a00:1
            1:2:3:4:5:6:1.2.3.4        | 1:2:3:4:5:6:102:304
            """)
    void ipv6CanonicalForm(String text, String canonical) {
        InetAddress address = Literals.ipv6(text).orElseThrow();
        assertEquals(canonical, Literals.format(address));
        assertEquals(16, address.getAddress().length, "an IPv4-mapped literal stays IPv6");
    }

    @ParameterizedTest(name = "{0} is not IPv6")
    @ValueSource(
            strings = {
                "",
                ":",
                ":::",
                "1:2:3:4:5:6:7",
                "1:2:3:4:5:6:7:8:9",
                "1::2::3",
                "::1::",
                "12345::",
                "g::",
                "::1%1",
                "1.2.3.4",
                "::1.2.3",
                "1:2:3:4:5:6:7:1.2.3.4",
                "::1.2.3.4:5",
                "1:",
                ":1",
                "::٣"
            })
    void notIpv6(String text) {
        assertEquals(Optional.empty(), Literals.ipv6(text));
    }

    @ParameterizedTest(name = "{0} is not a strict dotted quad")
    @ValueSource(
            strings = {
                "",
                "1",
                "1.2.3",
                "1.2.3.4.5",
                "01.2.3.4",
                "1.2.3.256",
                "1.2.3.-1",
                "1..3.4",
                "1.2.3.4.",
                "0x1.2.3.4",
                "1.2.3.4 ",
                "١.2.3.4",
                "1.2.3.0004"
            })
    void notIpv4(String text) {
        assertEquals(Optional.empty(), Literals.ipv4(text));
    }
}
