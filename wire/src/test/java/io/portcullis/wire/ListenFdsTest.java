package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES pass, as sd_listen_fds(3) reads them. */
class ListenFdsTest {
    private static final long PID = 4242;

    /** pid|count|names (- for absent) -> the descriptors and names passed (- for none). */
    @ParameterizedTest(name = "LISTEN_PID={0} LISTEN_FDS={1} LISTEN_FDNAMES={2} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "4242|2|a/proxy/127.0.0.1/1:a/dns/127.0.0.1/53|3=a/proxy/127.0.0.1/1 4=a/dns/127.0.0.1/53",
                "4242|1|-|3=unknown",
                "4242|0|-|-",
                "4242|0|''|-",
                "4243|2|a:b|-",
                "-|2|a:b|-",
                "4242|-|-|-",
                "4242|3|x::y|3=x 4= 5=y",
            })
    void theVariablesPassDescriptorsFromThreeUpToTheirOwnPidOnly(
            String pid, String count, String names, String passed) {
        List<ListenFds.Passed> got = ListenFds.parse(environment(pid, count, names), PID);

        assertEquals(
                passed,
                got.isEmpty()
                        ? "-"
                        : String.join(
                                " ",
                                got.stream()
                                        .map(one -> one.fd() + "=" + one.name())
                                        .toList()));
    }

    @ParameterizedTest(name = "LISTEN_PID={0} LISTEN_FDS={1} LISTEN_FDNAMES={2} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "4242|two|-|LISTEN_FDS: two (expected: a number)",
                "4242|-1|-|LISTEN_FDS: -1 (expected: a number)",
                "4242|65537|-|LISTEN_FDS: 65537 (expected: at most 65536)",
                "x42|1|-|LISTEN_PID: x42 (expected: a number)",
                "99999999999999999999|1|-|LISTEN_PID: 99999999999999999999 (expected: a number)",
                "4242|2|a|LISTEN_FDNAMES: 1 names (expected: one per descriptor, 2)",
                "4242|1|a:b|LISTEN_FDNAMES: 2 names (expected: one per descriptor, 1)",
                "4242|1|''|LISTEN_FDNAMES: 0 names (expected: one per descriptor, 1)",
            })
    void variablesThatAreNotTheManagersAreAnError(String pid, String count, String names, String message) {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> ListenFds.parse(environment(pid, count, names), PID));
        assertEquals(message, refused.getMessage());
    }

    @Test
    void aDescriptorThatIsNotOpenCannotBeAdopted() {
        long pid = ProcessHandle.current().pid();
        Map<String, String> environment = Map.of(
                "LISTEN_PID", String.valueOf(pid), "LISTEN_FDS", "60000", "LISTEN_FDNAMES", "x:".repeat(59_999) + "x");

        Posix.Failure failure = assertThrows(Posix.Failure.class, () -> ListenFds.adopt(environment));
        assertEquals(9, failure.errno()); // EBADF: a test JVM has far fewer than 60 000 open
    }

    private static Map<String, String> environment(String pid, String count, String names) {
        Map<String, String> environment = new HashMap<>();
        put(environment, "LISTEN_PID", pid);
        put(environment, "LISTEN_FDS", count);
        put(environment, "LISTEN_FDNAMES", names);
        return environment;
    }

    private static void put(Map<String, String> environment, String name, String value) {
        if (!value.equals("-")) {
            environment.put(name, value);
        }
    }
}
