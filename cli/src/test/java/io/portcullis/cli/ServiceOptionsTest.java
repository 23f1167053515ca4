package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceOptionsTest {
    @TempDir
    Path dir;

    /** value | the address it listens on ("-": a usage error). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "127.0.0.1:9464   | 127.0.0.1:9464",
                "9464             | 127.0.0.1:9464",
                "0                | 127.0.0.1:0",
                "[::1]:9464       | [::1]:9464",
                "0.0.0.0:65535    | 0.0.0.0:65535",
                "[::]:9464        | [::]:9464",
                "localhost:9464   | -",
                "::1:9464         | -",
                "[::1]            | -",
                "127.0.0.1:65536  | -",
                "127.0.0.1:       | -",
                "127.0.0.1:-1     | -",
                "127.0.0.1:94a    | -",
                "1.2.3:9464       | -",
                "''               | -",
            })
    void aListenAddressIsAnIpLiteralAndAPort(String value, String expected) {
        Optional<InetSocketAddress> address = ServiceOptions.listenAddress(value);

        assertEquals(
                expected,
                address.map(io.netty.util.NetUtil::toSocketAddressString).orElse("-"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"relay", "daemon"})
    void badServiceOptionsAreUsageErrorsNamingEachOption(String command) throws Exception {
        Path spawn = Files.writeString(dir.resolve("spawn.json"), "{\"id\": \"s\"}");
        Path host = Files.writeString(dir.resolve("host.json"), "{}");
        List<String> args = new ArrayList<>(
                command.equals("relay")
                        ? List.of("relay", "--spawn", spawn.toString())
                        : List.of(
                                "daemon",
                                "--host",
                                host.toString(),
                                "--control",
                                dir.resolve("c.sock").toString()));
        args.addAll(List.of("--metrics-listen", "localhost:9464", "--log-level", "loud", "--drain", "ten"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = Main.run(
                args.toArray(String[]::new),
                new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String errors = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, errors);
        assertTrue(
                errors.contains("--metrics-listen: localhost:9464 (expected: ADDRESS:PORT with an IP address"), errors);
        assertTrue(errors.contains("--log-level: loud (expected: error, warn, info or debug)"), errors);
        assertTrue(errors.contains("--drain: ten (expected: 0-86400 seconds)"), errors);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(dir.resolve("c.sock")));
    }

    @ParameterizedTest(name = "--metrics-file {0}")
    @ValueSource(strings = {"no-such-folder/relay.prom", "."})
    void aMetricsFileOutsideAnExistingFolderIsRefusedAtStart(String name) throws Exception {
        Path spawn = Files.writeString(dir.resolve("spawn.json"), "{\"id\": \"s\"}");
        Path metrics = dir.resolve(name);
        CliRun run = CliRun.of("", "relay", "--spawn", spawn.toString(), "--metrics-file", metrics.toString());

        assertEquals(2, run.status(), run.err());
        assertEquals(
                "--metrics-file: " + metrics + " (expected: a file in an existing directory)",
                run.err().strip());
        assertEquals("", run.out());
    }
}
