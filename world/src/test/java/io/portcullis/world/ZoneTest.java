package io.portcullis.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.handler.codec.dns.DnsRecordType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ZoneTest {

    @Test
    void eachTypeWalksTheSequenceOnItsOwnAndTheLastAnswerRepeats() {
        Zone zone = new Zone().set("flip.test", DnsAnswer.of("93.184.77.10"), DnsAnswer.of("10.0.0.1"));
        assertEquals(DnsAnswer.of("93.184.77.10"), zone.answer("flip.test", DnsRecordType.A));
        assertEquals(DnsAnswer.of("93.184.77.10"), zone.answer("flip.test", DnsRecordType.AAAA));
        assertEquals(DnsAnswer.of("10.0.0.1"), zone.answer("flip.test", DnsRecordType.A));
        assertEquals(DnsAnswer.of("10.0.0.1"), zone.answer("flip.test", DnsRecordType.A));
        assertEquals(3, zone.queries("flip.test", DnsRecordType.A));
        assertEquals(4, zone.queries("flip.test"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"WWW.Example.Test., www.example.test", "www.example.test, www.example.test", "x., x"})
    void namesAreComparedWithoutCaseAndTrailingDot(String asked, String stored) {
        Zone zone = new Zone().set(stored, DnsAnswer.of("93.184.77.10"));
        assertEquals(DnsAnswer.of("93.184.77.10"), zone.answer(asked, DnsRecordType.A));
        assertEquals(1, zone.queries(stored));
    }

    @Test
    void unknownNamesAreNxdomainAndCountedSettingANameResetsItsCounts() {
        Zone zone = new Zone();
        assertEquals(DnsAnswer.nxdomain(), zone.answer("gone.test", DnsRecordType.A));
        assertEquals(1, zone.queries("gone.test"));
        zone.set("gone.test", DnsAnswer.empty());
        assertEquals(0, zone.queries("gone.test"));
        zone.clear();
        assertEquals(0, zone.queries("gone.test"));
    }

    @Test
    void anEmptySequenceIsRefused() {
        assertEquals(
                "sequence: [] (expected: at least one answer)",
                assertThrows(IllegalArgumentException.class, () -> new Zone().set("x.test"))
                        .getMessage());
    }
}
