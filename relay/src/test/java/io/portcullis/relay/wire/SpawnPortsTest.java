package io.portcullis.relay.wire;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpawnPortsTest {

    @ParameterizedTest(name = "proxy {0}, forwards {1}, door {2} -> refused")
    @CsvSource(
            delimiter = '|',
            value = {
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
        return text.isBlank()
                ? Set.of()
                : Arrays.stream(text.split(" ")).map(Integer::valueOf).collect(Collectors.toSet());
    }
}
