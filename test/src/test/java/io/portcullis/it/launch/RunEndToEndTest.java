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
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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

    /**
     * Named entries and the namespace's DNS (SPEC R24): a listed tcp entry's name resolves to its
     * synthetic address inside the namespace, and a client with no proxy support reaches the
     * origin by name; a listed https name gets the addresses the relay resolved; an unlisted name
     * gets no answer, and the world's DNS server never hears of it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void aListedTcpEntryIsReachedByNameWithoutTheProxy(String sandbox) throws Exception {
        String unlisted = sandbox + "-secret.example.test";
        // getaddrinfo without AI_ADDRCONFIG (glibc's getent ahosts sets it, and a namespace with
        // loopback alone has no address that counts for it; decision D35).
        String addresses = "import socket; "
                + "print(\"\\n\".join(sorted({a[4][0] for a in socket.getaddrinfo(\"www.example.test\", 443,"
                + " 0, socket.SOCK_STREAM)})))";
        String connect = "import socket; s = socket.create_connection((\"nas.lan\", 8080), timeout=10); "
                + "s.sendall(b\"GET /named HTTP/1.0\\r\\nHost: nas.lan\\r\\n\\r\\n\"); "
                + "print(s.makefile(\"rb\").read().decode())";
        Run run = run(
                sandbox,
                List.of("--allow", "nas.lan:8080", "--allow", "www.example.test:443"),
                "/bin/sh",
                "-c",
                "getent hosts nas.lan; python3 -c '" + addresses + "'; " + "getent hosts " + unlisted
                        + "; echo unlisted=$?; python3 -c '" + connect + "'");
        assertEquals(0, run.exit(), run.toString());
        List<String> lines = run.out().lines().toList();
        assertEquals("127.77.0.1      nas.lan", lines.get(0), run.toString());
        assertEquals(
                Set.of(world.internetHost(0), world.internetHost(2)),
                lines.subList(1, 3).stream().map(InetAddress::ofLiteral).collect(Collectors.toSet()),
                run.toString());
        assertEquals("unlisted=2", lines.get(3), run.toString());
        assertTrue(
                run.out().contains("\"local\":\"192.168.77.10:8080\"")
                        && run.out().contains("/named"),
                run.out());
        assertEquals(0, world.zone().queries(unlisted), "the unlisted name reached the world's DNS");
        assertTrue(
                run.err().contains("\"kind\":\"named\"") && run.err().contains("\"target\":\"nas.lan:8080\""),
                run.err());
        assertTrue(
                run.err().contains("\"kind\":\"dns\",\"target\":\"" + unlisted + "\"")
                        && run.err().contains("\"code\":\"not-listed\""),
                run.err());
    }

    /** In {@code none} mode the namespace's DNS answers nothing and asks nobody. */
    @Test
    void withNetworkNoneNoNameResolvesAndNoQueryLeaves() throws Exception {
        Path spawn = Files.writeString(dir.resolve("none.json"), "{\"id\": \"none\", \"network\": \"none\"}");
        int before = world.zone().queries("nas.lan");
        Run run = Portcullis.run(
                List.of(
                        "run",
                        "--host",
                        host.toString(),
                        "--spawn",
                        spawn.toString(),
                        "--",
                        "/bin/sh",
                        "-c",
                        "getent hosts nas.lan; echo status=$?"),
                "");
        assertEquals(0, run.exit(), run.toString());
        assertEquals("status=2", run.out().strip(), run.toString());
        assertEquals(before, world.zone().queries("nas.lan"));
        assertTrue(run.err().contains("\"kind\":\"dns\"") && run.err().contains("\"code\":\"mode-none\""), run.err());
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
