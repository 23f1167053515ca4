package io.portcullis.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import io.portcullis.world.DnsAnswer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
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
                List.of("--allow", "nas.lan:8443", "--log", log.toString(), "--share-tmp"),
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
        assertEquals(
                List.of("portcullis: refused CONNECT www.example.test:443: not-listed (no listed entry matches and the"
                        + " internet shape does not apply)"),
                refusals(run),
                "one readable line for the refusal, none for the allowed connection: " + run.err());
    }

    /** The person's lines on stderr (the command's own, curl's {@code -v}, are the rest). */
    private static List<String> refusals(Run run) {
        return run.err().lines().filter(l -> l.startsWith("portcullis: ")).toList();
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
        Path log = dir.resolve("named.jsonl");
        Run run = run(
                sandbox,
                List.of("--allow", "nas.lan:8080", "--allow", "www.example.test:443", "--log", log.toString()),
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
        String decisions = Files.readString(log);
        assertTrue(
                decisions.contains("\"kind\":\"named\"") && decisions.contains("\"target\":\"nas.lan:8080\""),
                decisions);
        assertTrue(
                decisions
                        .lines()
                        .anyMatch(line -> line.contains("\"kind\":\"dns\"")
                                && line.contains("\"target\":\"" + unlisted + "\"")
                                && line.contains("\"code\":\"not-listed\"")),
                decisions);
        assertTrue(
                refusals(run)
                        .contains("portcullis: refused DNS " + unlisted + ": not-listed (no listed entry matches"
                                + " and the internet shape does not apply)"),
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
        assertEquals(
                List.of("portcullis: refused DNS nas.lan: mode-none (this spawn's network is none)"),
                refusals(run).stream().distinct().toList(),
                run.err());
    }

    /**
     * Issue 26 (#14): {@code run --spawn FILE} keeps the policy's shadow (SPEC R26): the internet
     * shape allows the connection, and the decision line says the shadow, listing nothing, would
     * have refused it.
     */
    @Test
    void aPolicyFilesShadowIsDecidedBeside() throws Exception {
        Path spawn = Files.writeString(
                dir.resolve("shadowed.json"),
                "{\"id\": \"shadowed\", \"network\": \"internet\", \"shadow\": {\"network\": \"listed\"}}");
        Path log = dir.resolve("shadow.jsonl");
        Run run = run(
                "auto",
                List.of("--spawn", spawn.toString(), "--log", log.toString(), "--share-tmp"),
                "/bin/sh",
                "-c",
                curl("https://www.example.test/shadowed"));
        assertEquals(0, run.exit(), run.toString());
        String decisions = Files.readString(log);
        assertTrue(
                decisions.contains("\"target\":\"www.example.test:443\"")
                        && decisions.contains("\"verdict\":\"allow\"")
                        && decisions.contains("\"shadow\":{\"verdict\":\"deny\",\"code\":\"not-listed\"}"),
                decisions);
    }

    @Test
    void pythonsUrllibTunnelsThroughTheProxyVariables() throws Exception {
        // http.client sends "CONNECT host:port HTTP/1.0": the proxy kind must take it like HTTP/1.1.
        String script = "import ssl, urllib.request; "
                + "c = ssl.create_default_context(cafile='" + world.tls().certificatePem() + "'); "
                + "print(urllib.request.urlopen('https://nas.lan:8443/python', context=c, timeout=10).read().decode())";
        Path log = dir.resolve("python.jsonl");
        Run run = run(
                "auto",
                List.of("--allow", "nas.lan:8443", "--log", log.toString(), "--share-tmp"),
                "python3",
                "-c",
                script);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/python\""), run.toString());
        String decisions = Files.readString(log);
        assertTrue(
                decisions.contains("\"target\":\"nas.lan:8443\"") && decisions.contains("\"verdict\":\"allow\""),
                decisions);
    }

    @Test
    void internetReachesAGlobalNameOverTls() throws Exception {
        Run run = run(
                "auto",
                List.of("--internet", "--share-tmp"),
                "/bin/sh",
                "-c",
                curl("https://www.example.test/internet"));
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/internet\""), run.out());
        assertFalse(run.err().contains("\"verdict\""), "without --log no JSON decision line: " + run.err());
        assertEquals(List.of(), refusals(run), "an allowed connection prints nothing: " + run.err());
    }

    /**
     * Issue 14: no process of Portcullis stays in the namespace; the command is the child of the
     * sandbox's pid 1, a shell (issue 26: the sandbox has a pid namespace of its own).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandsParentIsTheSandboxNotAJvm(String sandbox) throws Exception {
        Run run = run(sandbox, List.of(), "/bin/sh", "-c", "echo ppid=$PPID; cat /proc/$PPID/comm; ls -l /proc/$$/exe");
        assertEquals(0, run.exit(), run.toString());
        assertEquals(List.of("ppid=1", "sh"), run.out().lines().limit(2).toList(), run.toString());
        assertFalse(run.out().contains("java"), "no JVM is the command's process or parent: " + run.out());
    }

    /**
     * The spawn's socket is gone once the command runs. Seen from inside: in the host's /tmp its
     * directory is gone too; in the sandbox's own, the folder it was bound on stays, empty.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"bwrap, ''", "unshare, ''", "bwrap, --share-tmp", "unshare, --share-tmp"})
    void theSpawnDirectoryIsGoneOnceTheCommandRuns(String sandbox, String option) throws Exception {
        Path parent = Files.createDirectory(dir.resolve("spawns"));
        List<String> options = new ArrayList<>(List.of("--dir", parent.toString()));
        String find = "find " + parent + " -mindepth 1";
        if (option.isEmpty()) {
            find += " ! -type d";
        } else {
            options.add(option);
        }
        Run run = run(sandbox, options, "/bin/sh", "-c", find + "; exit 4");
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
        assertEquals(
                List.of(
                        "portcullis: refused forward 127.0.0.1:9: owner-none (nothing listens on that address and port)"),
                refusals(run),
                run.err());
    }

    private static final String NOBODY = "65534";

    /**
     * Issue 12: docs/run.md's forward example, {@code run --allow 127.0.0.1:5000 -- curl
     * http://127.0.0.1:5000/}, against a service of the user who runs it (uid 65534 here, on a free
     * port): that user is the gateway's, so the listed forward reaches the add-on's own service
     * (R31). Run by that user, and by root under sudo for that user (SUDO_UID).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"by the user", "by root under sudo", "by root with a host file naming the uid"})
    void theDocumentedForwardReachesTheInvokingUsersOwnService(String how) throws Exception {
        try (Service service = Service.start(NOBODY)) {
            ProcessBuilder builder = forwardExample(service.port());
            builder.environment().remove("SUDO_UID");
            switch (how) {
                case "by the user" -> {
                    List<String> argv = new ArrayList<>(asUser(NOBODY));
                    argv.addAll(builder.command());
                    builder.command(argv);
                }
                case "by root under sudo" -> builder.environment().put("SUDO_UID", NOBODY);
                default -> {
                    Path gateway = Files.writeString(
                            dir.resolve("gateway.json"), "{\"owner\": {\"gatewayUid\": " + NOBODY + "}}");
                    builder.command().addAll(2, List.of("--host", gateway.toString()));
                }
            }
            Run run = Run.of(builder, "", 60);
            assertEquals(0, run.exit(), run.toString());
            assertEquals(Service.BODY, run.out(), run.toString());
            assertEquals(List.of(), refusals(run), run.err());
        }
    }

    /**
     * Issue 12: root's run (no sudo; root is never taken as the gateway's user) against uid 65534's
     * service: refused, in one readable line that names the socket's real uid and what to change,
     * and the JSON line goes to --log.
     */
    @Test
    void anotherUsersServiceIsRefusedInOneLineThatSaysWhatToChange() throws Exception {
        try (Service service = Service.start(NOBODY)) {
            Path log = dir.resolve("forward.jsonl");
            ProcessBuilder builder = forwardExample(service.port());
            builder.environment().remove("SUDO_UID");
            builder.command().addAll(2, List.of("--log", log.toString())); // after ./portcullis run
            Run run = Run.of(builder, "", 60);
            assertEquals(52, run.exit(), run.toString());
            assertEquals(
                    List.of("portcullis: refused forward 127.0.0.1:" + service.port() + ": owner-other-user (the"
                            + " listener belongs to another user: the socket is uid 65534's, and there is no gateway"
                            + " uid (root is never taken as the gateway's user); to reach that user's services, run"
                            + " portcullis as uid 65534 (or with sudo from it), or set owner.gatewayUid 65534 in the"
                            + " host file (--host))"),
                    refusals(run),
                    run.err());
            assertFalse(run.err().contains("\"verdict\""), run.err());
            String decisions = Files.readString(log);
            assertTrue(
                    decisions.contains("\"code\":\"owner-other-user\"") && decisions.contains("\"uid\":65534"),
                    decisions);
        }
    }

    /**
     * Issue 25: for a user who may not ask Docker, root's own service was refused as "Docker is
     * unreachable". It is root's: that is the reason, and what to change says so.
     */
    @Test
    void rootsServiceIsRefusedAsRootsForAUserWhoCannotAskDocker() throws Exception {
        try (Service service = Service.start("0")) {
            ProcessBuilder builder = forwardExample(service.port());
            builder.environment().remove("SUDO_UID");
            List<String> argv = new ArrayList<>(asUser(NOBODY));
            argv.addAll(builder.command());
            Run run = Run.of(builder.command(argv), "", 60);
            assertEquals(52, run.exit(), run.toString());
            assertEquals(
                    List.of("portcullis: refused forward 127.0.0.1:" + service.port() + ": owner-root (the listener is"
                            + " root's, and no running container is known to publish the port; a root service is"
                            + " reached only as a port that a container publishes: run it as uid 65534, the gateway's"
                            + " user)"),
                    refusals(run),
                    run.err());
        }
    }

    /** {@code ./portcullis run --allow 127.0.0.1:PORT -- curl -sS http://127.0.0.1:PORT/}. */
    private static ProcessBuilder forwardExample(int port) {
        String target = "127.0.0.1:" + port;
        return Portcullis.command(new ArrayList<>(
                List.of("run", "--allow", target, "--", "curl", "-sS", "--max-time", "10", "http://" + target + "/")));
    }

    private static List<String> asUser(String uid) {
        return List.of("setpriv", "--reuid", uid, "--regid", uid, "--clear-groups");
    }

    /** A loopback HTTP service of {@code uid}, on a free port, as a process of its own. */
    private record Service(Process process, int port) implements AutoCloseable {
        static final String BODY = "a service of the invoking user\n";
        private static final String SERVER = """
                import http.server, sys
                class H(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        body = %s.encode()
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    def log_message(self, *args):
                        pass
                s = http.server.HTTPServer(("127.0.0.1", 0), H)
                print(s.server_address[1], flush=True)
                s.serve_forever()
                """;

        static Service start(String uid) throws IOException {
            List<String> argv = new ArrayList<>(asUser(uid));
            argv.addAll(List.of("/usr/bin/python3", "-c", SERVER.formatted("\"" + BODY.replace("\n", "\\n") + "\"")));
            Process process = new ProcessBuilder(argv)
                    .directory(Path.of("/").toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String port = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (port == null) {
                process.destroyForcibly();
                throw new IOException("the service of uid " + uid + " did not start");
            }
            return new Service(process, Integer.parseInt(port.strip()));
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    /**
     * Issue 25: every run printed the relay's JSON descriptor warning, about a relay-wide budget
     * (16384) a run never uses. Now only a limit below the spawn's own budget is said, in one line.
     */
    @ParameterizedTest(name = "hard limit {0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "4096 | ''",
                "1024 | portcullis run: warning: the descriptor limit 1024 lets the relay hold 224 connections, fewer"
                        + " than this spawn's limits.spawnConnections 512 (1600 descriptors)"
            })
    void theDescriptorLimitIsSaidOnlyWhenTheSpawnsOwnBudgetCannotBeMet(int hard, String line) throws Exception {
        ProcessBuilder command =
                Portcullis.command(List.of("run", "--sandbox", "bwrap", "--host", host.toString(), "--", "true"));
        command.command().addAll(0, List.of("prlimit", "--nofile=" + hard + ":" + hard, "--"));
        Run run = Run.of(command, "", 60);
        assertEquals(0, run.exit(), run.toString());
        List<String> said =
                run.err().lines().filter(l -> l.contains("descriptor")).toList();
        if (line.isEmpty()) {
            assertEquals(List.of(), said, run.err());
        } else {
            assertEquals(1, said.size(), run.err());
            assertTrue(said.getFirst().startsWith(line), run.err());
        }
        assertFalse(run.err().contains("{\"time\""), "no JSON on a person's terminal: " + run.err());
    }

    /**
     * Issue 25: own names that did not resolve held each start for the DNS timeout with no word.
     * Now the start waits a second at most and says which names, and what follows.
     */
    @Test
    void ownNamesThatDoNotAnswerAreSaidAtOnceAndDoNotHoldTheStart() throws Exception {
        world.zone().set("own.example.test", DnsAnswer.silent());
        Files.writeString(
                host,
                "{\"ownNames\": [\"own.example.test\"], \"dns\": {\"servers\": [\""
                        + world.dns().hostConfigForm() + "\"], \"timeoutMillis\": 30000}}");
        long start = System.nanoTime();
        Run run = run("bwrap", List.of("--internet"), "true");
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);

        assertEquals(0, run.exit(), run.toString());
        assertTrue(seconds < 25, "the start waited for the 30 s DNS timeout: " + seconds + " s");
        assertTrue(
                run.err()
                        .contains("portcullis run: warning: own names do not resolve: own.example.test (no answer yet"
                                + " after 1000 ms); until they do, the internet shape refuses every target"
                                + " (own-names-unresolved)"),
                run.err());
    }

    /** Issue 25: a host file whose log.file's folder does not exist was said to be a link. */
    @Test
    void aDecisionLogInAFolderThatDoesNotExistIsSaidSo() throws Exception {
        Path logs = dir.resolve("no-such-folder");
        Files.writeString(
                host,
                "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]}, \"log\": {\"file\": \""
                        + logs.resolve("decisions.jsonl") + "\"}}");
        Run run = run("bwrap", List.of(), "true");
        assertEquals(125, run.exit(), run.toString());
        assertTrue(run.err().contains("the folder " + logs + " does not exist"), run.err());
        assertFalse(run.err().contains("link"), run.err());
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
