package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one question {@code check --host} asks each DNS server, and how its answer is read. */
class DnsProbeTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0, true, answered NOERROR",
        "3, true, answered NXDOMAIN",
        "2, false, answered SERVFAIL for invalid. in 7 ms: it would fail the relay's lookups too",
        "5, false, answered REFUSED",
        "9, false, answered rcode 9"
    })
    void aServerServesTheRelayWhenItAnswersNoErrorOrNxdomain(int rcode, boolean answered, String detail) {
        DnsProbe.Result result = DnsProbe.judge(rcode, 7);
        assertEquals(answered, result.answered());
        assertTrue(result.detail().startsWith(detail), result.detail());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "abcd8183000100000000000007696e76616c69640000010001, 3",
        "abcd8180000100000000000007696e76616c69640000010001, 0",
        "abcd0100000100000000000007696e76616c69640000010001, ''",
        "abce8183000100000000000007696e76616c69640000010001, ''",
        "abcd8183, ''"
    })
    void onlyAnAnswerToTheQuestionAskedCounts(String hex, String rcode) {
        byte[] packet = HexFormat.of().parseHex(hex);
        assertEquals(
                rcode.isEmpty() ? Optional.empty() : Optional.of(Integer.parseInt(rcode)),
                DnsProbe.rcode(packet, packet.length, 0xabcd));
    }

    @Test
    void theQuestionIsInvalidAWithRecursionDesired() {
        assertEquals(
                "abcd0100000100000000000007696e76616c69640000010001",
                HexFormat.of().formatHex(DnsProbe.query(0xabcd)));
    }
}
