package io.portcullis.relay.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.relay.address.Literals;
import java.net.InetAddress;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC R14: the first and last address of every block, and the neighbours on each side. */
class GlobalUnicastTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0.0.0.0                                      | special | 0.0.0.0/8
            0.255.255.255                                | special | 0.0.0.0/8
            1.0.0.0                                      | global  | 0.0.0.0/8
            9.255.255.255                                | global  | 10.0.0.0/8
            10.0.0.0                                     | special | 10.0.0.0/8
            10.255.255.255                               | special | 10.0.0.0/8
            11.0.0.0                                     | global  | 10.0.0.0/8
            100.63.255.255                               | global  | 100.64.0.0/10
            100.64.0.0                                   | special | 100.64.0.0/10
            100.127.255.255                              | special | 100.64.0.0/10
            100.128.0.0                                  | global  | 100.64.0.0/10
            126.255.255.255                              | global  | 127.0.0.0/8
            127.0.0.0                                    | special | 127.0.0.0/8
            127.255.255.255                              | special | 127.0.0.0/8
            128.0.0.0                                    | global  | 127.0.0.0/8
            169.253.255.255                              | global  | 169.254.0.0/16
            169.254.0.0                                  | special | 169.254.0.0/16
            169.254.255.255                              | special | 169.254.0.0/16
            169.255.0.0                                  | global  | 169.254.0.0/16
            172.15.255.255                               | global  | 172.16.0.0/12
            172.16.0.0                                   | special | 172.16.0.0/12
            172.31.255.255                               | special | 172.16.0.0/12
            172.32.0.0                                   | global  | 172.16.0.0/12
            191.255.255.255                              | global  | 192.0.0.0/24
            192.0.0.0                                    | special | 192.0.0.0/24
            192.0.0.255                                  | special | 192.0.0.0/24
            192.0.1.0                                    | global  | 192.0.0.0/24
            192.0.1.255                                  | global  | 192.0.2.0/24
            192.0.2.0                                    | special | 192.0.2.0/24
            192.0.2.255                                  | special | 192.0.2.0/24
            192.0.3.0                                    | global  | 192.0.2.0/24
            192.31.195.255                               | global  | 192.31.196.0/24
            192.31.196.0                                 | special | 192.31.196.0/24
            192.31.196.255                               | special | 192.31.196.0/24
            192.31.197.0                                 | global  | 192.31.196.0/24
            192.52.192.255                               | global  | 192.52.193.0/24
            192.52.193.0                                 | special | 192.52.193.0/24
            192.52.193.255                               | special | 192.52.193.0/24
            192.52.194.0                                 | global  | 192.52.193.0/24
            192.88.98.255                                | global  | 192.88.99.0/24
            192.88.99.0                                  | special | 192.88.99.0/24
            192.88.99.255                                | special | 192.88.99.0/24
            192.88.100.0                                 | global  | 192.88.99.0/24
            192.167.255.255                              | global  | 192.168.0.0/16
            192.168.0.0                                  | special | 192.168.0.0/16
            192.168.255.255                              | special | 192.168.0.0/16
            192.169.0.0                                  | global  | 192.168.0.0/16
            192.175.47.255                               | global  | 192.175.48.0/24
            192.175.48.0                                 | special | 192.175.48.0/24
            192.175.48.255                               | special | 192.175.48.0/24
            192.175.49.0                                 | global  | 192.175.48.0/24
            198.17.255.255                               | global  | 198.18.0.0/15
            198.18.0.0                                   | special | 198.18.0.0/15
            198.19.255.255                               | special | 198.18.0.0/15
            198.20.0.0                                   | global  | 198.18.0.0/15
            198.51.99.255                                | global  | 198.51.100.0/24
            198.51.100.0                                 | special | 198.51.100.0/24
            198.51.100.255                               | special | 198.51.100.0/24
            198.51.101.0                                 | global  | 198.51.100.0/24
            203.0.112.255                                | global  | 203.0.113.0/24
            203.0.113.0                                  | special | 203.0.113.0/24
            203.0.113.255                                | special | 203.0.113.0/24
            203.0.114.0                                  | global  | 203.0.113.0/24
            223.255.255.255                              | global  | 224.0.0.0/4
            224.0.0.0                                    | special | 224.0.0.0/4
            239.255.255.255                              | special | 224.0.0.0/4
            240.0.0.0                                    | special | 224.0.0.0/4
            255.255.255.255                              | special | 240.0.0.0/4
            ::                                           | special | ::/128
            ::1                                          | special | ::/128
            ::2                                          | special | ::1/128
            ::fffe:ffff:ffff                             | special | ::ffff:0:0/96
            ::ffff:0:0                                   | special | ::ffff:0:0/96
            ::ffff:ffff:ffff                             | special | ::ffff:0:0/96
            ::1:0:0:0                                    | special | ::ffff:0:0/96
            ::ffff:ffff                                  | special | ::/96
            ::1:0:0                                      | special | ::/96
            64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff        | special | 64:ff9b::/96
            64:ff9b::                                    | special | 64:ff9b::/96
            64:ff9b::ffff:ffff                           | special | 64:ff9b::/96
            64:ff9b::1:0:0                               | special | 64:ff9b::/96
            64:ff9b:0:ffff:ffff:ffff:ffff:ffff           | special | 64:ff9b:1::/48
            64:ff9b:1::                                  | special | 64:ff9b:1::/48
            64:ff9b:1:ffff:ffff:ffff:ffff:ffff           | special | 64:ff9b:1::/48
            64:ff9b:2::                                  | special | 64:ff9b:1::/48
            ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff        | special | 100::/64
            100::                                        | special | 100::/64
            100::ffff:ffff:ffff:ffff                     | special | 100::/64
            100:0:0:1::                                  | special | 100::/64
            fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | fc00::/7
            fc00::                                       | special | fc00::/7
            fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | fc00::/7
            fe00::                                       | special | fc00::/7
            fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | fe80::/10
            fe80::                                       | special | fe80::/10
            febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | fe80::/10
            fec0::                                       | special | fe80::/10
            feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | fec0::/10
            ff00::                                       | special | fec0::/10
            ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | ff00::/8
            1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | 2000::/3
            2000::                                       | global  | 2000::/3
            3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | global  | 2000::/3
            4000::                                       | special | 2000::/3
            2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | global  | 2001::/23
            2001::                                       | special | 2001::/23
            2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff       | special | 2001::/23
            2001:200::                                   | global  | 2001::/23
            2001:db7:ffff:ffff:ffff:ffff:ffff:ffff       | global  | 2001:db8::/32
            2001:db8::                                   | special | 2001:db8::/32
            2001:db8:ffff:ffff:ffff:ffff:ffff:ffff       | special | 2001:db8::/32
            2001:db9::                                   | global  | 2001:db8::/32
            2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | global  | 2002::/16
            2002::                                       | special | 2002::/16
            2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | 2002::/16
            2003::                                       | global  | 2002::/16
            3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | global  | 3fff::/20
            3fff::                                       | special | 3fff::/20
            3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff       | special | 3fff::/20
            3fff:1000::                                  | global  | 3fff::/20
            5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | 5f00::/16
            5f00::                                       | special | 5f00::/16
            5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff      | special | 5f00::/16
            5f01::                                       | special | 5f00::/16
            """)
    void blockEdges(String address, String expected, String block) {
        assertEquals(expected, Rules.isGlobalUnicast(literal(address)) ? "global" : "special", "edge of " + block);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            ::ffff:8.8.8.8                         | special | mapped addresses are outside 2000::/3
            ::8.8.8.8                              | special | compatible addresses are outside 2000::/3
            64:ff9b::808:808                       | special | NAT64 is outside 2000::/3
            2002:808:808::1                        | special | 6to4 is special whatever it carries
            2001:0:4136:e378:8000:63bf:f7f7:f7f7   | special | Teredo is inside 2001::/23
            2606:4700::1111                        | global  | an ordinary global address
            8.8.8.8                                | global  | an ordinary global address
            """)
    void embeddedForms(String address, String expected, String why) {
        assertEquals(expected, Rules.isGlobalUnicast(literal(address)) ? "global" : "special", why);
    }

    static InetAddress literal(String text) {
        Optional<? extends InetAddress> address = text.contains(":") ? Literals.ipv6(text) : Literals.ipv4(text);
        return address.orElseThrow(() -> new IllegalArgumentException(text));
    }
}
