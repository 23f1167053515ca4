package io.portcullis.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RouteCheckTest {

    @ParameterizedTest(name = "{0} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "world-side.json          | pwa1i | 93.184.77.0/24 2001:4860:77::/64 | ",
                "world-side.json          |       | 93.184.77.0/24 2001:4860:77::/64 | a device of the world",
                "world-side.json          | pwa1i | 93.184.77.0/24                   | 2001:4860:77::/64",
                "host-default.json        | eth0  | 192.0.2.0/24                     | no default route",
                "v6-default.json          |       |                                  | no default route",
                "world-extra-route.json   | pwa1i | 93.184.77.0/24                   | 8.8.8.0/24",
                "unreachable-default.json |       |                                  | ",
                "empty.json               |       |                                  | ",
            })
    void routesOutAreProblems(String file, String devices, String prefixes, String firstProblem) throws IOException {
        List<String> problems = RouteCheck.problems(
                read(file),
                devices == null ? Set.of() : Set.of(devices.split(" ")),
                prefixes == null
                        ? List.of()
                        : Arrays.stream(prefixes.split(" ")).map(Prefix::parse).toList());
        if (firstProblem == null) {
            assertEquals(List.of(), problems);
        } else {
            assertTrue(!problems.isEmpty() && problems.getFirst().contains(firstProblem), problems.toString());
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "world-extra-route.json | 2",
                "not json               | 1",
                "{}                     | 1",
            })
    void everyProblemIsCountedAndUnreadableOutputIsOne(String input, int count) throws IOException {
        String json = input.endsWith(".json") ? read(input) : input;
        assertEquals(
                count,
                RouteCheck.problems(json, Set.of("pwa1i"), List.of(Prefix.parse("93.184.77.0/24")))
                        .size());
    }

    private static String read(String file) throws IOException {
        try (InputStream in = RouteCheckTest.class.getResourceAsStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
