package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TargetTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            example.com:443                 | example.com:443
            EXAMPLE.Com:443                 | example.com:443
            example.com.:443                | example.com:443
            Example.COM.:8443               | example.com:8443
            bücher.example:443              | xn--bcher-kva.example:443
            BÜCHER.example:443              | xn--bcher-kva.example:443
            xn--bcher-kva.example:443       | xn--bcher-kva.example:443
            faß.example:443                 | xn--fa-hia.example:443
            ñandú.example:443               | xn--and-6ma2c.example:443
            пример.испытание:443            | xn--e1afmkfd.xn--80akhbyknj4f:443
            例え.テスト:443                  | xn--r8jz45g.xn--zckzah:443
            FAß.Example.:443                | xn--fa-hia.example:443
            XN--FA-HIA.example:443          | xn--fa-hia.example:443
            fass.example:443                | fass.example:443
            ａ.example:443                   | a.example:443
            r3---sn-4g5e.googlevideo.com:443 | r3---sn-4g5e.googlevideo.com:443
            localhost:5000                  | localhost:5000
            LOCALHOST.:5000                 | localhost:5000
            _dmarc.example.com:1            | _dmarc.example.com:1
            a-b.c:65535                     | a-b.c:65535
            0.0.0.0:1                       | 0.0.0.0:1
            1.2.3.4:80                      | 1.2.3.4:80
            255.255.255.255:80              | 255.255.255.255:80
            127.0.0.1:5000                  | 127.0.0.1:5000
            [::1]:443                       | [::1]:443
            [::]:443                        | [::]:443
            [2001:DB8::1]:443               | [2001:db8::1]:443
            [2001:0db8:0000:0000:0000:0000:0000:0001]:443 | [2001:db8::1]:443
            [2001:db8:0:0:1:0:0:1]:443      | [2001:db8::1:0:0:1]:443
            [2001:db8:0:1:1:1:1:1]:443      | [2001:db8:0:1:1:1:1:1]:443
            [::ffff:1.2.3.4]:443            | [::ffff:1.2.3.4]:443
            [::FFFF:0102:0304]:443          | [::ffff:1.2.3.4]:443
            [::1.2.3.4]:443                 | [::102:304]:443
            [64:ff9b::192.0.2.33]:443       | [64:ff9b::c000:221]:443
            [1:2:3:4:5:6:7::]:1             | [1:2:3:4:5:6:7:0]:1
            [fe80::1]:22                    | [fe80::1]:22
            """)
    void canonicalForm(String text, String canonical) {
        assertEquals(canonical, Target.parse(text).toString());
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(
            strings = {
                "",
                ":",
                "example.com",
                "example.com:",
                ":443",
                "example.com:0",
                "example.com:65536",
                "example.com:0443",
                "example.com:+443",
                "example.com:-1",
                "example.com:44 3",
                "example.com:443 ",
                " example.com:443",
                "example.com:1-100",
                "example.com:https",
                "exa mple.com:443",
                "exa\tmple.com:443",
                "example.com\u0000:443",
                "example.com\r\n:443",
                "user@example.com:443",
                "user:pw@example.com:443",
                "*.example.com:443",
                "*:443",
                "example.com/:443",
                "example.com?:443",
                "example.com#x:443",
                "exa\\mple.com:443",
                "exa%41mple.com:443",
                "example..com:443",
                ".example.com:443",
                "example.com..:443",
                "-example.com:443",
                "example-.com:443",
                "exa_mple!.com:443",
                "0177.0.0.1:80",
                "0x7f.0.0.1:80",
                "0x7f000001:80",
                "2130706433:80",
                "127.1:80",
                "127.0.1:80",
                "1.2.3.4.5:80",
                "1.2.3.256:80",
                "01.2.3.4:80",
                "1.2.3.04:80",
                "1.2.3.4.:80",
                "1.2.3:80",
                "example.123:80",
                "::1:443",
                "[::1]",
                "[::1:443",
                "::1]:443",
                "[fe80::1%eth0]:443",
                "[fe80::1%25eth0]:443",
                "[1.2.3.4]:443",
                "[::ffff:1.2.3.04]:443",
                "[12345::]:443",
                "[1:2:3:4:5:6:7:8:9]:443",
                "[1::2::3]:443",
                "[:1]:443",
                "[1:]:443",
                "[::g]:443",
                "[]:443",
                "[ ::1]:443",
                "[::1] :443",
                "[::1]:443x",
                "a.bcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopq.c:443",
            })
    void refused(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Target.parse(text));
        assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
    }

    /** Names that IDNA2003 (java.net.IDN) mapped to another host or silently cleaned (R7, UTS #46). */
    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(
            strings = {
                "fa\u200Bss.example:443", // zero-width space: IDNA2003 made it fass.example
                "\uFEFFexample.com:443", // a BOM
                "exa\u00ADmple.com:443", // soft hyphen
                "a\u200Db.example:443", // zero-width joiner outside its CONTEXTJ context
                "\u0661\u0031.example:443", // Arabic-Indic digit then a European one: bidi rule
                "xn--a.example:443", // not valid Punycode
                "xn--zz.example:443",
                "xn--ss-.example:443",
                "a\u2100.example:443", // maps to a/c
                "a\uD800.example:443", // a lone surrogate
                "\uFE0Fa.example:443", // a variation selector, deleted by the mapping
                "\u00BFa.example:443", // punctuation: UTS #46 valid (NV8), IDNA2008 disallowed
                "xn--a-vda.example:443", // the same, in ACE form
                "google.com\u2044login.example:443", // fraction slash
                "\u00EF\u00BB\u00BFexample.com:443", // a UTF-8 BOM read as ISO-8859-1, as the relay reads a head
                "fa\u00C3\u009F.example:443", // UTF-8 faß read as ISO-8859-1
            })
    void refusedUnderUts46(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Target.parse(text));
        assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
    }

    @ParameterizedTest(name = "a name of {0} bytes -> {1}")
    @CsvSource({"253, true", "254, false"})
    void nameLength(int length, boolean valid) {
        StringBuilder name = new StringBuilder();
        while (name.length() < length) {
            name.append(name.length() % 50 == 49 ? '.' : 'a');
        }
        String text = name + ":443";
        if (valid) {
            assertEquals(length, Target.parse(text).host().length());
        } else {
            assertThrows(IllegalArgumentException.class, () -> Target.parse(text));
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "localhost:1, true", "127.0.0.1:1, true", "127.255.255.255:1, true", "[::1]:1, true",
        "[::ffff:127.0.0.1]:1, true", "128.0.0.1:1, false", "126.255.255.255:1, false", "[::2]:1, false",
        "localhost.example:1, false", "0.0.0.0:1, false",
    })
    void loopbackIsAForward(String text, boolean loopback) {
        assertEquals(loopback, Target.parse(text).isLoopback());
    }

    @ParameterizedTest(name = "{0} and {1} are one target")
    @CsvSource({
        "Example.com.:443, example.COM:443",
        "[2001:db8::0:1]:1, [2001:DB8:0::1]:1",
        "bücher.example:1, XN--BCHER-KVA.example.:1",
        "faß.example:1, xn--fa-hia.example:1",
        "Faß.example.:1, XN--FA-HIA.EXAMPLE:1",
    })
    void oneSpellingPerTarget(String a, String b) {
        assertEquals(Target.parse(a), Target.parse(b));
    }

    /** IDNA2003 folded ß to ss: an entry for one host matched another (R7, IDNA2008). */
    @ParameterizedTest(name = "{0} and {1} are two targets")
    @CsvSource({"faß.example:1, fass.example:1", "FAß.example:1, FASS.example:1", "xn--fa-hia.example:1, fass.example:1"
    })
    void sharpSIsNotSs(String a, String b) {
        assertNotEquals(Target.parse(a), Target.parse(b));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"example.com:443", "[::1]:1"})
    void literalIsSetOnlyForAddresses(String text) {
        Target target = Target.parse(text);
        assertEquals(text.startsWith("["), target.literal().isPresent());
        assertFalse(target.isName() == target.literal().isPresent());
    }

    /** The decision line's form of a dialed address: RFC 5952, IPv6 in brackets, IPv4-mapped as written. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            93.184.77.10            | 443 | 93.184.77.10:443
            2001:4860:77:0:0:0:0:10 | 443 | [2001:4860:77::10]:443
            0:0:0:0:0:0:0:1         | 8080 | [::1]:8080
            ::ffff:7f00:1           | 80  | 127.0.0.1:80
            """)
    void socketAddressText(String address, int port, String text) throws Exception {
        assertEquals(text, Target.text(new java.net.InetSocketAddress(java.net.InetAddress.getByName(address), port)));
    }
}
