package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.portcullis.relay.address.Literals;
import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CidrTest {

    @ParameterizedTest(name = "{0} holds {1} -> {2}")
    @CsvSource({
        "10.0.0.0/8, 10.0.0.0, true",
        "10.0.0.0/8, 10.255.255.255, true",
        "10.0.0.0/8, 9.255.255.255, false",
        "10.0.0.0/8, 11.0.0.0, false",
        "0.0.0.0/0, 255.255.255.255, true",
        "0.0.0.0/0, ::1, false",
        "169.254.169.254, 169.254.169.254, true",
        "169.254.169.254/32, 169.254.169.255, false",
        "fd00:ec2::254, fd00:ec2::254, true",
        "fd00:ec2::254/128, fd00:ec2::255, false",
        "2001:db8::/32, 2001:db8:ffff:ffff:ffff:ffff:ffff:ffff, true",
        "2001:db8::/32, 2001:db9::, false",
        "::/0, 1.2.3.4, false",
        "fe80::/10, febf::1, true",
        "fe80::/10, fec0::, false",
        "2001:db8::/64, 2001:db8::ffff:ffff:ffff:ffff, true",
        "2001:db8::/65, 2001:db8::8000:0:0:0, false",
        "::ffff:10.0.0.0/104, 10.1.2.3, true",
        "::ffff:10.0.0.0/104, 11.0.0.0, false",
        "::ffff:10.0.0.0/104, ::ffff:10.1.2.3, true",
        "::ffff:10.0.0.0/104, ::10.1.2.3, true",
        "10.0.0.0/8, ::ffff:10.1.2.3, true",
        "10.0.0.0/8, ::10.1.2.3, true",
        "10.0.0.0/8, 64:ff9b::a01:203, false",
        "::ffff:169.254.169.254, 169.254.169.254, true",
        "::ffff:0:0/96, 255.255.255.255, true",
        "::10.0.0.0/104, 10.1.2.3, false",
        "::/0, ::ffff:1.2.3.4, true",
    })
    void contains(String cidr, String address, boolean expected) {
        assertEquals(
                expected,
                new DenyList(java.util.List.of(Cidr.parse(cidr)))
                        .match(literal(address))
                        .isPresent());
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(
            strings = {
                "",
                "/8",
                "10.0.0.0/",
                "10.0.0.0/33",
                "10.0.0.1/8",
                "10.0.0.0/08",
                "10.0.0.0/-1",
                "fd00::/129",
                "fd00::1/64",
                "example.com/8",
                "10/8",
                "10.0.0.0/8/8",
                "10.0.0.0 /8"
            })
    void refused(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse(text));
        assertEquals(true, e.getMessage().contains("(expected: "), e.getMessage());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"10.0.0.0/8, 10.0.0.0/8", "FD00:EC2::254, fd00:ec2::254/128", "1.2.3.4, 1.2.3.4/32"})
    void canonical(String text, String shown) {
        assertEquals(shown, Cidr.parse(text).toString());
    }

    /** A block in IPv4-mapped form stands for an IPv4 block (R14): ::ffff:10.0.0.0/104 is 10.0.0.0/8. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "::ffff:10.0.0.0/104, 10.0.0.0/8",
        "::ffff:0:0/96, 0.0.0.0/0",
        "::ffff:1.2.3.4, 1.2.3.4/32",
        "::ffff:a9fe:a9fe/128, 169.254.169.254/32",
        "10.0.0.0/8, none",
        "::10.0.0.0/104, none",
        "::fffe:0:0/95, none",
        "::/0, none",
        "fd00::/8, none",
    })
    void mappedFormIsIpv4(String text, String ipv4) {
        assertEquals(ipv4, Cidr.parse(text).mappedIpv4().map(Cidr::toString).orElse("none"));
    }

    /** An address as the relay reads it: an IPv4-mapped literal stays IPv6. */
    private static InetAddress literal(String text) {
        return text.contains(":")
                ? Literals.ipv6(text).orElseThrow()
                : Literals.ipv4(text).orElseThrow();
    }
}
