package io.portcullis.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SiteTest {

    @Test
    void theWorldTakesTheFirstAddressOfEachPrefix() {
        assertEquals(
                List.of(LiteralAddresses.address("93.184.77.1"), LiteralAddresses.address("2001:4860:77::1")),
                Site.internet().gateways());
        assertTrue(Site.internet().owns(LiteralAddresses.address("93.184.77.1")));
        assertTrue(Site.lan().owns(LiteralAddresses.address("192.168.77.10")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "Inet  | 10.0.0.0/24 | 10.0.0.5 | role: Inet (expected: 1-8 lowercase letters)",
                "inet  | 10.0.0.0/24 | 10.0.1.5 | hosts: 10.0.1.5 (expected: inside [10.0.0.0/24])",
                "inet  | 10.0.0.0/24 | 10.0.0.1 | hosts: 10.0.0.1 (expected: not 10.0.0.1, the world's own side)",
            })
    void badSitesSayWhatWasExpected(String role, String prefix, String host, String message) {
        assertEquals(
                message,
                assertThrows(
                                IllegalArgumentException.class,
                                () -> new Site(
                                        role, List.of(Prefix.parse(prefix)), List.of(LiteralAddresses.address(host))))
                        .getMessage());
    }
}
