package io.portcullis.owner.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.ContainerInfo;
import java.net.InetAddress;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The owner check's one port check, as each value that carries a port uses it. */
class ChecksTest {

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "query     | 1     | ok",
                "query     | 65535 | ok",
                "query     | 0     | port: 0 (expected: 1-65535)",
                "query     | 65536 | port: 65536 (expected: 1-65535)",
                "published | 0     | port: 0 (expected: 1-65535)",
                "published | 443   | ok",
                "zero      | 0     | ok",
                "zero      | -1    | port: -1 (expected: 0-65535)",
                "zero      | 65536 | port: 65536 (expected: 0-65535)",
            })
    void onePortCheck(String user, int port, String expected) {
        IntConsumer check = switch (user) {
            case "query" ->
                p -> new OwnerQuery("addon", OwnerQuery.Source.OWNER, InetAddress.getLoopbackAddress(), p, true);
            case "published" -> p -> new ContainerInfo.Published(Optional.empty(), p, "tcp");
            default -> p -> Checks.portOrZero("port", p);
        };
        String seen;
        try {
            check.accept(port);
            seen = "ok";
        } catch (IllegalArgumentException e) {
            seen = e.getMessage();
        }
        assertEquals(expected, seen);
    }
}
