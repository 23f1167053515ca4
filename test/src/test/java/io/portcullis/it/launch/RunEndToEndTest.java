package io.portcullis.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import io.portcullis.relay.world.DnsAnswer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./portcullis run} as a user runs it, from the test JVM's namespace: a relay in the run's
 * process, the entry and the command in a new user and network namespace, curl reaching the
 * world's origins through it. Both sandboxes, bubblewrap and unshare, are run.
 */
@NetnsTest
class RunEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    @TempDir
    Path dir;

    private Path host;

    @BeforeEach
    void hostConfigAndNames() throws IOException {
        world.zone().set("nas.lan", DnsAnswer.of(List.of(world.lanHost(0))));
        world.zone().set("www.example.test", DnsAnswer.of(List.of(world.internetHost(0), world.internetHost(2))));
        host = dir.resolve("host.json");
        Files.writeString(
                host, "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"], \"timeoutMillis\": 2000}}");
    }

    private Run run(String sandbox, List<String> options, String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("run", "--sandbox", sandbox, "--host", host.toString()));
        args.addAll(options);
        args.add("--");
        args.addAll(List.of(command));
        return Portcullis.run(args, "");
    }

    private String curl(String... urlAndOptions) {
        List<String> argv = new ArrayList<>(List.of(
                "curl",
                "-sS",
                "-v",
                "--max-time",
                "10",
                "--cacert",
                world.tls().certificatePem().toString()));
        argv.addAll(List.of(urlAndOptions));
        return String.join(" ", argv);
    }

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource({
        "bwrap, true, 0", "bwrap, exit 3, 3", "bwrap, kill -TERM $$, 143",
        "unshare, true, 0", "unshare, exit 3, 3", "unshare, kill -TERM $$, 143",
    })
    void theCommandsExitStatusIsRunsExitStatus(String sandbox, String script, int status) throws Exception {
        Run run = run(sandbox, List.of(), "/bin/sh", "-c", script);
        assertEquals(status, run.exit(), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandHasLoopbackOnlyAndTheProxyVariables(String sandbox) throws Exception {
        Run run = run(sandbox, List.of(), "/bin/sh", "-c", "ip -o link show; ip -o addr show scope global; env");
        assertEquals(0, run.exit(), run.toString());
        List<String> links =
                run.out().lines().filter(l -> l.matches("^\\d+: .*")).toList();
        assertEquals(1, links.size(), run.out());
        assertTrue(links.getFirst().contains(": lo:") && links.getFirst().contains("UP"), run.out());
        assertTrue(run.out().contains("HTTPS_PROXY=http://127.0.0.1:39080\n"), run.out());
        assertFalse(run.out().contains("\"proxyPort\""), "the readiness line stays out of the command's output");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void anAllowedHostAnswersAndAnotherIsRefusedWithItsCode(String sandbox) throws Exception {
        Path log = dir.resolve("decisions.jsonl");
        Run run = run(
                sandbox,
                List.of("--allow", "nas.lan:8443", "--log", log.toString()),
                "/bin/sh",
                "-c",
                curl("https://nas.lan:8443/allowed") + "; echo; " + curl("https://www.example.test/refused")
                        + "; echo status=$?");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/allowed\""), run.toString());
        assertTrue(run.out().contains("\"local\":\"192.168.77.10:8443\""), run.out());
        assertTrue(
                run.err().contains("< HTTP/1.1 403 Forbidden") && run.err().contains("< Portcullis-Deny: not-listed"),
                run.err());
        assertTrue(run.out().contains("status=56"), run.out());
        String decisions = Files.readString(log);
        assertTrue(
                decisions.contains("\"target\":\"nas.lan:8443\"")
                        && decisions.contains("\"dialed\":\"192.168.77.10:8443\""),
                decisions);
        assertTrue(
                decisions.contains("\"target\":\"www.example.test:443\"")
                        && decisions.contains("\"code\":\"not-listed\""),
                decisions);
        assertFalse(run.err().contains("\"verdict\""), "with --log, no decision line on stderr");
    }

    @Test
    void pythonsUrllibTunnelsThroughTheProxyVariables() throws Exception {
        // http.client sends "CONNECT host:port HTTP/1.0": the proxy kind must take it like HTTP/1.1.
        String script = "import ssl, urllib.request; "
                + "c = ssl.create_default_context(cafile='" + world.tls().certificatePem() + "'); "
                + "print(urllib.request.urlopen('https://nas.lan:8443/python', context=c, timeout=10).read().decode())";
        Run run = run("auto", List.of("--allow", "nas.lan:8443"), "python3", "-c", script);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/python\""), run.toString());
        assertTrue(
                run.err().contains("\"target\":\"nas.lan:8443\"") && run.err().contains("\"verdict\":\"allow\""),
                run.err());
    }

    @Test
    void internetReachesAGlobalNameOverTls() throws Exception {
        Run run = run("auto", List.of("--internet"), "/bin/sh", "-c", curl("https://www.example.test/internet"));
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/internet\""), run.out());
        assertTrue(
                run.err().contains("\"target\":\"www.example.test:443\"")
                        && run.err().contains("\"verdict\":\"allow\""),
                "decision lines go to stderr by default: " + run.err());
    }

    /** Issue 14: no process of Portcullis stays in the namespace; the command is the sandbox's child. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandsParentIsTheSandboxNotAJvm(String sandbox) throws Exception {
        Run run = run(sandbox, List.of(), "/bin/sh", "-c", "cat /proc/$PPID/comm; ls -l /proc/$$/exe");
        assertEquals(0, run.exit(), run.toString());
        assertEquals(sandbox, run.out().lines().findFirst().orElse(""), run.toString());
        assertFalse(run.out().contains("java"), "no JVM is the command's process or parent: " + run.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theSpawnDirectoryIsGoneOnceTheCommandRuns(String sandbox) throws Exception {
        Path parent = Files.createDirectory(dir.resolve("spawns"));
        Run run = run(sandbox, List.of("--dir", parent.toString()), "/bin/sh", "-c", "ls -A " + parent + "; exit 4");
        assertEquals(4, run.exit(), run.toString());
        assertEquals("", run.out().strip(), "the spawn socket served its hand-over and was removed with its directory");
        assertEquals(List.of(), list(parent));
    }

    @ParameterizedTest(name = "{0}: SIG{1}")
    @CsvSource({"bwrap, TERM", "unshare, TERM", "bwrap, INT"})
    void aSignalStopsTheCommandAndRemovesTheSpawn(String sandbox, String signal) throws Exception {
        Path parent = Files.createDirectory(dir.resolve("spawns"));
        String marker = "31.4159" + sandbox.length() + signal.length();
        ProcessBuilder builder = Portcullis.command(
                        List.of("run", "--sandbox", sandbox, "--dir", parent.toString(), "--", "sleep", marker))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.txt").toFile());
        Process process = builder.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sleeping(marker).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(
                    sleeping(marker).isEmpty(),
                    "the command never started: " + Files.readString(dir.resolve("out.txt")));
            assertEquals(List.of(), list(parent), "the spawn socket is gone once the command runs");
            assertEquals(
                    0,
                    Run.of(List.of("kill", "-" + signal, String.valueOf(process.pid())), "", 10)
                            .exit());
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "run did not stop");
            // Either way the command gets SIGTERM, as a wall would send it.
            assertEquals(143, process.exitValue(), Files.readString(dir.resolve("out.txt")));
            assertEquals(List.of(), list(parent));
            assertEquals(List.of(), sleeping(marker));
        } finally {
            process.destroyForcibly();
            sleeping(marker).forEach(ProcessHandle::destroyForcibly);
        }
    }

    @ParameterizedTest(name = "{0}: uid inside {1}")
    @CsvSource({"bwrap, 65534", "unshare, 0"})
    void anotherUserRunsItTooAndOnlyThatUidReachesTheRelay(String sandbox, String insideUid) throws Exception {
        // Port 9 is below 1024: the entry must be able to bind it for a user that is not root.
        ProcessBuilder builder = Portcullis.command(List.of(
                "run",
                "--sandbox",
                sandbox,
                "--allow",
                "127.0.0.1:9",
                "--",
                "/bin/sh",
                "-c",
                "id -u; curl -sS --max-time 10 http://127.0.0.1:9/; echo curl=$?"));
        List<String> argv =
                new ArrayList<>(List.of("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"));
        argv.addAll(builder.command());
        Run run = Run.of(builder.command(argv), "", 60);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith(insideUid + "\n") && run.out().contains("curl=52"), run.toString());
        // The relay judged the forward (no peer-uid refusal): nothing listens there, so the owner check refuses.
        assertTrue(
                run.err().contains("\"target\":\"forward:9\"") && run.err().contains("\"code\":\"owner-none\""),
                run.err());
    }

    @Test
    void aPolicyFileAndAllowTogetherAreAUsageError() throws Exception {
        Path spawn = dir.resolve("spawn.json");
        Files.writeString(spawn, "{\"id\": \"x\"}");
        Run run =
                Portcullis.run(List.of("run", "--spawn", spawn.toString(), "--allow", "nas.lan:443", "--", "true"), "");
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().contains("--spawn: with --internet or --allow"), run.err());
        Run bad = Portcullis.run(
                List.of(
                        "run",
                        "--allow",
                        "*.lan:443",
                        "--allow",
                        "a@b:1",
                        "--log",
                        "/nonexistent/log",
                        "--dir",
                        "/nonexistent",
                        "--",
                        "true"),
                "");
        assertEquals(2, bad.exit(), bad.toString());
        assertEquals(
                4,
                bad.err()
                        .lines()
                        .filter(l -> l.startsWith("portcullis run: --"))
                        .count(),
                bad.err());
        assertTrue(
                bad.err().contains("--log: /nonexistent/log (expected: a file in an existing directory)"), bad.err());
    }

    private static List<ProcessHandle> sleeping(String marker) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().command().map(c -> c.endsWith("/sleep")).orElse(false))
                .filter(p -> p.info()
                        .arguments()
                        .map(a -> List.of(a).equals(List.of(marker)))
                        .orElse(false))
                .toList();
    }

    private static List<Path> list(Path parent) throws IOException {
        try (Stream<Path> entries = Files.list(parent)) {
            return entries.toList();
        }
    }
}
