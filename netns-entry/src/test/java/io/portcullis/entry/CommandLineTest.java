package io.portcullis.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.portcullis.wire.Handoff;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandLineTest {
    private static final String KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    private static final Map<String, String> KEYED = Map.of(Handoff.Key.ENVIRONMENT, KEY);

    private static EntryOptions options(String line) {
        return assertInstanceOf(CommandLine.Run.class, CommandLine.parse(KEYED, line.split(" ")))
                .options();
    }

    private static List<String> problems(String... args) {
        return problems(KEYED, args);
    }

    private static List<String> problems(Map<String, String> environment, String... args) {
        return assertInstanceOf(CommandLine.Usage.class, CommandLine.parse(environment, args))
                .problems();
    }

    /** Endpoints as "kind port" words, in listening order. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --relay s                                                | proxy 39080
            --relay s --proxy-port 8080                              | proxy 8080
            --relay s --forward 5000 --door 3001                     | proxy 39080, forward 5000, door 3001
            --relay s --forward 39080                                | proxy 39081, forward 39080
            --relay s --forward 39081 --forward 39080                | proxy 39082, forward 39081, forward 39080
            --relay s --forward 39080 --door 39081                   | proxy 39082, forward 39080, door 39081
            --relay s --forward 39080 --forward 39082                | proxy 39081, forward 39080, forward 39082
            --relay s --proxy-port 65534 --forward 65534             | proxy 65535, forward 65534
            --relay=s --proxy-port=5000 --forward=5000 --door=5001   | proxy 5002, forward 5000, door 5001
            --relay s --named 127.77.0.1:5432 --dns                  | proxy 39080, named 127.77.0.1:5432, dns 127.0.0.1:53
            --relay s --dns --named 127.77.1.2:22 --named 127.77.0.1:22 | proxy 39080, named 127.77.1.2:22, named 127.77.0.1:22, dns 127.0.0.1:53
            --relay s --named 127.77.0.1:39080                       | proxy 39080, named 127.77.0.1:39080
            """)
    void listensOn(String line, String endpoints) {
        assertEquals(
                endpoints,
                options(line).endpoints().stream().map(Endpoint::toString).collect(Collectors.joining(", ")));
    }

    @Test
    void readsTheCommandAfterTheDoubleDashVerbatim() {
        EntryOptions options = options("--relay /run/s.sock --ready-fd 3 -- curl --door 1 -- x");
        assertEquals(List.of("curl", "--door", "1", "--", "x"), options.command());
        assertEquals(Path.of("/run/s.sock"), options.relay());
        assertEquals(Handoff.Key.parse(KEY), options.key());
        assertEquals(3, options.readyFd().getAsInt());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --help                          | help
            --relay s --forward 1 --help    | help
            -h                              | help
            --relay s -- a --help           | run
            --version                       | version
            -V                              | version
            --relay s --version             | version
            --relay s -- a --version        | run
            """)
    void answersHelpAndVersionUnlessTheyBelongToTheCommand(String line, String expected) {
        String parsed = switch (CommandLine.parse(KEYED, line.split(" "))) {
            case CommandLine.Help help -> "help";
            case CommandLine.Version version -> "version";
            case CommandLine.Run run -> "run";
            case CommandLine.Usage usage -> "usage " + usage.problems();
        };
        assertEquals(expected, parsed);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --forward 5000                       | --relay: missing (expected: the relay's unix socket path)
            --relay s --forward 0                | --forward: 0 (expected: 1-65535)
            --relay s --forward 65536            | --forward: 65536 (expected: 1-65535)
            --relay s --forward +80              | --forward: +80 (expected: 1-65535)
            --relay s --forward 5000 --forward 5000 | --forward: 5000 given twice (expected: distinct ports)
            --relay s --door 5000 --forward 5000 | --door: 5000 is also a forward (expected: a port of its own)
            --relay s --proxy-port x             | --proxy-port: x (expected: 1-65535)
            --relay s --proxy-port 65535 --door 65535 | --proxy-port: 65535 (expected: a free port at or above it, past forwards and the door, up to 65535)
            --relay s --ready-fd 0               | --ready-fd: 0 (expected: 1 or more)
            --relay s --relay t                  | --relay: given twice (expected: one socket path)
            --relay s --door                     | --door: no value (expected: a number)
            --relay                              | --relay: no value (expected: a socket path)
            --relay s curl                       | curl: unexpected argument (expected: an option, or -- before the command)
            --relay s --port                     | --port: unknown option (expected: --relay, --proxy-port, --forward, --door, --named, --dns, --ready-fd, --help or -- CMD)
            --relay s --named 127.0.0.1:5432     | --named: 127.0.0.1:5432 (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)
            --relay s --named 127.77.0.0:5432    | --named: 127.77.0.0:5432 (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)
            --relay s --named 127.77.0.01:5432   | --named: 127.77.0.01:5432 (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)
            --relay s --named 127.77.0.256:5432  | --named: 127.77.0.256:5432 (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)
            --relay s --named 127.77.0.1         | --named: 127.77.0.1 (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)
            --relay s --named 127.77.0.1:0       | --named: 0 (expected: 1-65535)
            --relay s --named 127.77.0.1:22 --named 127.77.0.1:22 | --named: 127.77.0.1:22 given twice (expected: distinct sockets)
            --relay s --dns --dns                | --dns: given twice (expected: once)
            --relay s --                         | --: nothing after it (expected: a command)
            """)
    void refuses(String line, String problem) {
        assertEquals(List.of(problem), problems(line.split(" ")));
    }

    @Test
    void namesEveryProblemAtOnce() {
        assertEquals(
                List.of(
                        "--forward: 70000 (expected: 1-65535)",
                        "--door: no value (expected: a number)",
                        "--relay: missing (expected: the relay's unix socket path)"),
                problems("--forward", "70000", "--door"));
    }

    @Test
    void helpAndVersionNeedNoKey() {
        assertEquals(new CommandLine.Help(), CommandLine.parse(Map.of(), "--help"));
        assertEquals(new CommandLine.Version(), CommandLine.parse(Map.of(), "--version"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            absent      | PORTCULLIS_HANDOFF_KEY: not set (expected: the spawn's handoffKey, 64 hex digits, from the relay's ready line or the daemon's answer)
            ''          | PORTCULLIS_HANDOFF_KEY: 0 characters (expected: 64 hex digits)
            short       | PORTCULLIS_HANDOFF_KEY: 63 characters (expected: 64 hex digits)
            not hex     | PORTCULLIS_HANDOFF_KEY: a character that is not a hex digit (expected: 64 hex digits)
            """)
    void refusesAMissingOrMalformedKeyWithoutRepeatingIt(String key, String problem) {
        Map<String, String> environment = switch (key) {
            case "absent" -> Map.of();
            case "short" -> Map.of(Handoff.Key.ENVIRONMENT, KEY.substring(1));
            case "not hex" -> Map.of(Handoff.Key.ENVIRONMENT, "z" + KEY.substring(1));
            default -> Map.of(Handoff.Key.ENVIRONMENT, key);
        };

        assertEquals(List.of(problem), problems(environment, "--relay", "s"));
    }

    @Test
    void refusesASocketPathTheKernelCannotHold() {
        String path = "/" + "d".repeat(CommandLine.MAX_SOCKET_PATH_BYTES);
        assertEquals(List.of("--relay: " + path + " (expected: at most 107 bytes)"), problems("--relay", path));
    }

    @ParameterizedTest(name = "{0} past {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            39080 | ''                | 39080
            39080 | 39080             | 39081
            39080 | 39080 39081 39083 | 39082
            65535 | 65535             | 65536
            """)
    void movesTheProxyPortUpToTheNextFreeOne(int requested, String taken, int expected) {
        Set<Integer> ports = Arrays.stream(taken.split(" "))
                .filter(s -> !s.isEmpty())
                .map(Integer::valueOf)
                .collect(Collectors.toSet());
        assertEquals(expected, EntryOptions.proxyPortPast(requested, ports));
    }
}
