package io.portcullis.relay.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpawnPortsTest {

    @ParameterizedTest(name = "proxy {0}, forwards {1}, door {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
        "39080 | ''                | 0     | 39080",
        "39080 | 39080             | 0     | 39081",
        "39080 | 39080 39081       | 0     | 39082",
        "39080 | 39080             | 39081 | 39082",
        "39080 | 5000              | 3001  | 39080",
        "3001  | ''                | 3001  | 3002",
    })
    void theProxyPortMovesUpPastForwardsAndTheDoor(int proxy, String forwards, int door, int expected) {
        assertEquals(expected, SpawnPorts.bumped(proxy, ports(forwards), door).proxy());
    }

    @ParameterizedTest(name = "proxy {0}, forwards {1}, door {2} -> refused")
    @CsvSource(delimiter = '|', value = {
        "0     | ''    | 0",
        "65536 | ''    | 0",
        "39080 | 39080 | 0",
        "39080 | ''    | 39080",
        "39080 | 0     | 0",
        "39080 | ''    | 70000",
    })
    void badPortsAreRefused(int proxy, String forwards, int door) {
        assertThrows(IllegalArgumentException.class, () -> new SpawnPorts(proxy, ports(forwards), door));
    }

    private static Set<Integer> ports(String text) {
        return text.isBlank() ? Set.of() : Arrays.stream(text.split(" ")).map(Integer::valueOf).collect(Collectors.toSet());
    }
}
