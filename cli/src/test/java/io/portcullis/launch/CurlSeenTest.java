package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CurlSeenTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = ';',
            value = {
                "200|200|0|; HTTP 200",
                "000|403|0|; HTTP 403",
                "403|000|56|CONNECT tunnel failed, response 403; CONNECT answered 403",
                "000|000|52|Empty reply from server; Empty reply from server",
                "000|000|7|; curl exit 7",
                "garbage; curl printed: garbage",
                "a|b|c|d; curl printed: a|b|c|d",
            })
    void whatCurlSawIsSaidInAFewWords(String line, String described) {
        assertEquals(described, CurlSeen.parse(line).describe());
    }

    @Test
    void noLineMeansCurlPrintedNothing() {
        assertEquals("curl printed nothing", CurlSeen.parse(null).describe());
    }
}
