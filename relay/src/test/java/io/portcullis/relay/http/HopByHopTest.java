package io.portcullis.relay.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The fields a side's Connection fields add to its hop-by-hop ones. */
class HopByHopTest {

    /** Connection field values, split at ';' | the names left out, sorted, space-separated ('-': the empty one). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``                      | connection te
            close                   | close connection te
            `Keep-Alive, X-Secret`  | connection keep-alive te x-secret
            `a,,b ; C`              | - a b c connection te
            `  X-One  ;x-one`       | connection te x-one
            """)
    void connectionTokensAreAddedInLowercase(String fields, String expected) {
        List<String> connection = fields.isEmpty() ? List.of() : Arrays.asList(fields.split(";"));
        Set<String> removed = HopByHop.fields(Set.of("connection", "te"), connection);
        assertEquals(
                expected,
                String.join(
                        " ",
                        new TreeSet<>(
                                removed.stream().map(n -> n.isEmpty() ? "-" : n).toList())));
    }
}
