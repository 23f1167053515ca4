package io.portcullis.relay.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeadParserTest {

    private static String unescape(String text) {
        return text.replace("\\r", "\r")
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\0", "\0");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n                  | GET / HTTP/1.1 [Host=a]",
                "GET / HTTP/1.0\\r\\n\\r\\n                                | GET / HTTP/1.0 []",
                "PUT /x HTTP/1.1\\r\\nA:b\\r\\nB: \\t c \\t\\r\\n\\r\\n   | PUT /x HTTP/1.1 [A=b, B=c]",
                "GET / HTTP/1.1\\r\\nX:\\r\\n\\r\\n                       | GET / HTTP/1.1 [X=]",
                "GET /\u00e9 HTTP/1.1\\r\\nX: \u00e9\\r\\n\\r\\n            | GET /\u00e9 HTTP/1.1 [X=\u00e9]",
            })
    void aStrictHeadIsReadAsSent(String head, String read) {
        RequestHead parsed = HeadParser.parse(unescape(head));

        List<String> fields =
                parsed.fields().stream().map(f -> f.name() + "=" + f.value()).toList();
        assertEquals(read, parsed.method() + " " + parsed.target() + " " + parsed.version() + " " + fields);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET / HTTP/1.1\\r\\n                          | does not end with an empty line",
                "GET / HTTP/1.1\\n\\r\\n\\r\\n                 | a bare LF",
                "GET / HTTP/1.1\\r\\nA: b\\rc\\r\\n\\r\\n      | a bare CR",
                "GET / HTTP/1.1\\r\\nA: \\0\\r\\n\\r\\n        | a NUL byte",
                "GET / HTTP/1.1\\r\\nA: \u0001\\r\\n\\r\\n     | a control byte",
                "GET / HTTP/1.1\\r\\nA: \u007f\\r\\n\\r\\n     | a control byte",
                "GET / HTTP/1.1\\r\\nA: b\\r\\n c\\r\\n\\r\\n | obsolete line folding",
                "GET / HTTP/1.1\\r\\n\\tA: b\\r\\n\\r\\n      | obsolete line folding",
                "GET / HTTP/1.1\\r\\nA : b\\r\\n\\r\\n         | not a token",
                "GET / HTTP/1.1\\r\\n: b\\r\\n\\r\\n           | not a token",
                "GET / HTTP/1.1\\r\\nA(b: c\\r\\n\\r\\n        | not a token",
                "GET / HTTP/1.1\\r\\nAb\\r\\n\\r\\n            | not a token",
                "GET  / HTTP/1.1\\r\\n\\r\\n                   | 4 parts",
                "GET / HTTP/1.1 \\r\\n\\r\\n                   | 4 parts",
                "GET /\\tx HTTP/1.1\\r\\n\\r\\n                | a control byte",
                "G\u00e9T / HTTP/1.1\\r\\n\\r\\n                | not a token",
                "GET / HTTP/1.2\\r\\n\\r\\n                    | not HTTP/1.1 or HTTP/1.0",
                "GET / HTTP/1.1\\r\\n\\r\\n\\r\\n              | obsolete line folding",
            })
    void anythingALenientParserWouldGuessAboutIsRefused(String head, String problem) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> HeadParser.parse(unescape(head)));

        assertEquals(true, e.getMessage().contains(problem), e.getMessage());
    }
}
