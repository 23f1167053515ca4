package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./portcullis daemon --upgrade} (SPEC R44, issue 24): four spawns, each the real entry in a
 * namespace of its own running a program that opens new tunnels to the world's echo origin (four
 * loops each: sixteen at once) and carries bulk from its bulk origin, through a daemon that a
 * successor takes over meanwhile. No new tunnel fails across the switch, {@code GET /spawns} is the
 * successor's, the daemon before exits 0 after its drain, and every bulk tunnel it held ends
 * whole. An upgrade that fails (a bad host file; a token file that is not the spawn's) leaves the
 * daemon before serving every spawn.
 */
@NetnsTest
@Timeout(300)
class UpgradeEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SPAWNS = 4;
    private static final int LOOPS = 4;
    private static final String METRICS = "127.0.0.1:9464";

    /**
     * The spawn's program: {@code LOOPS} loops of new tunnels (CONNECT to the echo origin, one
     * round trip, close) and one loop of bulk tunnels (8 MB from the bulk origin, read at about
     * 30 MB/s, to its end), until the test says {@code stop T0 T1}; then one JSON line: what
     * succeeded, what failed and why, the longest wait (CONNECT sent to 200 read) of a new tunnel
     * started between T0 and T1 (seconds of the wall clock), and the median and 99th percentile
     * of all.
     */
    private static final String CLIENT = """
            import json, socket, sys, threading, time
            port, loops = int(sys.argv[1]), int(sys.argv[2])
            BULK = 8_000_000
            stop = threading.Event()
            lock = threading.Lock()
            state = {"ok": 0, "bulkOk": 0, "failed": [], "bulkFailed": [], "tunnels": []}
            def head(s):
                data = b""
                while not data.endswith(b"\\r\\n\\r\\n"):
                    byte = s.recv(1)
                    if not byte:
                        raise OSError("closed before the answer")
                    data += byte
                line = data.split(b"\\r\\n")[0]
                if not line.startswith(b"HTTP/1.1 200"):
                    raise OSError(line.decode())
            def exactly(s, n):
                got = b""
                while len(got) < n:
                    more = s.recv(n - len(got))
                    if not more:
                        raise OSError("closed after %d of %d bytes" % (len(got), n))
                    got += more
                return got
            def tunnels():
                while not stop.is_set():
                    start = time.time()
                    try:
                        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
                            s.sendall(b"CONNECT 93.184.77.10:7 HTTP/1.1\\r\\n\\r\\n")
                            head(s)
                            waited = time.time() - start
                            s.sendall(b"ping\\n")
                            if exactly(s, 5) != b"ping\\n":
                                raise OSError("a wrong echo")
                        with lock:
                            state["ok"] += 1
                            state["tunnels"].append((start, waited))
                    except OSError as e:
                        with lock:
                            state["failed"].append("%.3f %r" % (start, e))
            def bulk():
                while not stop.is_set():
                    try:
                        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                            s.sendall(b"CONNECT 93.184.77.10:9 HTTP/1.1\\r\\n\\r\\n")
                            head(s)
                            s.sendall(b"get %d\\n" % BULK)
                            count = 0
                            while True:
                                more = s.recv(65536)
                                if not more:
                                    break
                                count += len(more)
                                time.sleep(0.002)
                            if count != BULK:
                                raise OSError("%d of %d bytes" % (count, BULK))
                        with lock:
                            state["bulkOk"] += 1
                    except OSError as e:
                        with lock:
                            state["bulkFailed"].append(repr(e))
            threads = [threading.Thread(target=tunnels) for _ in range(loops)] + [threading.Thread(target=bulk)]
            for t in threads:
                t.start()
            print("running", flush=True)
            for line in sys.stdin:
                words = line.split()
                if words[0] == "count":
                    with lock:
                        print(json.dumps({"ok": state["ok"], "bulkOk": state["bulkOk"]}), flush=True)
                elif words[0] == "stop":
                    t0, t1 = float(words[1]), float(words[2])
                    stop.set()
                    for t in threads:
                        t.join(60)
                    window = [w for (s, w) in state["tunnels"] if t0 <= s <= t1]
                    waits = sorted(w for (s, w) in state["tunnels"])
                    def at(q):
                        return waits[min(len(waits) - 1, int(q * len(waits)))] if waits else 0
                    print(json.dumps({"ok": state["ok"], "failed": state["failed"][:10],
                        "failures": len(state["failed"]), "bulkOk": state["bulkOk"],
                        "bulkFailed": state["bulkFailed"][:10], "inWindow": len(window),
                        "longestWait": max(window, default=0), "p50": at(0.5), "p99": at(0.99)}), flush=True)
                    break
            """;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private Path control;
    private Path spawns;
    private Path host;

    @BeforeEach
    void files() throws IOException {
        world.zone().clear();
        control = dir.resolve("control.sock");
        spawns = Files.createDirectory(dir.resolve("spawns"));
        // Limits far above what the programs ask: a refusal here is the upgrade's, never the rate's.
        host = Files.writeString(
                dir.resolve("host.json"),
                "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]},"
                        + " \"limits\": {\"spawnRate\": 100000, \"spawnBurst\": 100000}}");
    }

    @AfterEach
    void stop() {
        processes.reversed().forEach(Process::destroyForcibly);
    }

    /** A daemon over {@link #control}; its ready line once it printed one, else empty. */
    private record Daemon(Process process, Path stderr, Optional<JsonNode> ready) {
        String log() throws IOException {
            return Files.readString(stderr);
        }
    }

    private Daemon daemon(String name, Path hostFile, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "daemon",
                "--host",
                hostFile.toString(),
                "--control",
                control.toString(),
                "--dir",
                spawns.toString(),
                "--drain",
                "60"));
        args.addAll(List.of(extra));
        Path stderr = dir.resolve(name + "-stderr.txt");
        Process process =
                Portcullis.command(args).redirectError(stderr.toFile()).start();
        processes.add(process);
        String line =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        return new Daemon(process, stderr, Optional.ofNullable(line).map(UpgradeEndToEndTest::json));
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    /** curl over the control socket: the body, then the status code on a line of its own. */
    private Run curl(String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "curl",
                "-sS",
                "--max-time",
                "20",
                "--unix-socket",
                control.toString(),
                "-w",
                "\n%{http_code}",
                "-X",
                method));
        if (body != null) {
            command.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", body));
        }
        command.add("http://portcullis" + path);
        return Run.of(command, "", 40);
    }

    private static int status(Run run) {
        String out = run.out().strip();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1));
    }

    private static JsonNode body(Run run) {
        return json(run.out().substring(0, run.out().lastIndexOf('\n')));
    }

    /** A spawn's program, talking with the test over its standard input and output. */
    private record Client(String id, Process process, PrintWriter in, BufferedReader out, Path errors) {
        String answer() throws IOException {
            String line = out.readLine();
            assertTrue(line != null, "spawn " + id + ": its program ended: " + Files.readString(errors));
            return line;
        }
    }

    /** Opens spawn {@code id} and starts its entry with {@code program}'s arguments. */
    private Client spawn(String id, String policy, List<String> program) throws Exception {
        Run opened = curl("POST", "/spawns", policy);
        assertEquals(201, status(opened), opened.toString());
        JsonNode spawn = body(opened);
        List<String> sockets = new ArrayList<>(List.of(
                "--ready-fd", "2", "--proxy-port", spawn.get("proxyPort").asText(), "--dns"));
        spawn.get("named")
                .forEach(named ->
                        sockets.addAll(List.of("--named", named.get("address").asText())));
        if (!spawn.get("door").isNull()) {
            sockets.addAll(List.of("--door", spawn.get("door").asText()));
        }
        Process entry = Portcullis.entryInSpawnNamespace(
                        Path.of(spawn.get("socket").asText()),
                        spawn.get("handoffKey").asText(),
                        sockets,
                        program)
                .redirectError(dir.resolve(id + "-entry.txt").toFile())
                .start();
        Path errors = dir.resolve(id + "-entry.txt");
        processes.add(entry);
        return new Client(
                id,
                entry,
                new PrintWriter(entry.getOutputStream(), true, StandardCharsets.UTF_8),
                new BufferedReader(new InputStreamReader(entry.getInputStream(), StandardCharsets.UTF_8)),
                errors);
    }

    private static String policy(String id) {
        return """
                {"id": "%s", "proxyPort": 39080, "hosts": [{"target": "93.184.77.10:7", "scheme": "tcp"},
                 {"target": "93.184.77.10:9", "scheme": "tcp"}]}""".formatted(id);
    }

    @Test
    void aDaemonUpgradedUnderLoadLosesNoNewTunnelAndEndsTheTunnelsItHeldWhole() throws Exception {
        // One metrics address for both: the successor binds it once the daemon before let it go.
        Daemon before = daemon("before", host, "--metrics-listen", METRICS);
        assertTrue(before.ready().isPresent(), "no ready line: " + before.log());
        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < SPAWNS; i++) {
            clients.add(spawn("s" + i, policy("s" + i), List.of("python3", "-u", "-c", CLIENT, "39080", "" + LOOPS)));
        }
        for (Client client : clients) {
            assertEquals("running", client.answer());
        }
        awaitTunnels(clients, 20);

        Daemon after = daemon("after", host, "--metrics-listen", METRICS, "--upgrade");
        assertTrue(after.ready().isPresent(), "no ready line from the successor: " + after.log());
        assertEquals(
                before.process().pid(), after.ready().get().get("upgradedFrom").asLong(), after.log());
        assertEquals(SPAWNS, after.ready().get().get("spawns").asInt());
        awaitTunnels(clients, 20);

        Run listed = curl("GET", "/spawns", null);
        assertEquals(200, status(listed), listed.toString());
        assertEquals(SPAWNS, body(listed).size());
        for (JsonNode spawn : body(listed)) {
            assertEquals("serving", spawn.get("state").asText(), spawn.toString());
            assertTrue(spawn.get("socket").isNull(), "restored in the successor: " + spawn);
        }
        assertTrue(before.process().waitFor(90, TimeUnit.SECONDS), "the daemon before did not exit after its drain");
        assertEquals(List.of(after.process().pid()), controlHolders(), "the successor holds the control socket");
        assertEquals(METRICS, after.ready().get().get("metrics").asText());
        Run healthz = Run.of(
                List.of(
                        "curl",
                        "-s",
                        "-o",
                        "/dev/null",
                        "-w",
                        "%{http_code}",
                        "--max-time",
                        "10",
                        "http://" + METRICS + "/healthz"),
                "",
                30);
        assertEquals("200", healthz.out().strip(), "the successor serves the metrics address: " + healthz);
        assertEquals(0, before.process().exitValue(), before.log());
        assertTrue(
                before.log()
                        .contains(
                                "\"message\":\"upgraded: pid " + after.process().pid() + " serves the 4 spawns"),
                before.log());

        // The switch: from the successor's first accept (it accepts from its first restored spawn on)
        // to the moment the daemon before took its sockets off its event loops; new tunnels started
        // within a second of either end count as started during the upgrade.
        Instant first = accepts(after).min(Instant::compareTo).orElseThrow();
        Instant paused = logged(before, "upgraded: pid").getFirst();
        double longest = 0;
        for (Client client : clients) {
            client.in().println("stop " + (seconds(first) - 1) + " " + (seconds(paused) + 1));
            JsonNode result = json(client.answer());
            longest = Math.max(longest, result.get("longestWait").asDouble());
            System.out.println("upgrade: spawn " + client.id() + ": " + result);
            assertEquals(0, result.get("failures").asInt(), client.id() + ": " + result);
            assertEquals(0, result.get("bulkFailed").size(), client.id() + ": " + result);
            assertTrue(result.get("bulkOk").asInt() > 0, client.id() + ": " + result);
        }
        report(before, after, first, paused, longest);
        after.process().destroy();
        assertTrue(after.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, after.process().exitValue(), after.log());
    }

    /** Waits until every client completed {@code more} new tunnels since it was last asked. */
    private static void awaitTunnels(List<Client> clients, int more) throws Exception {
        for (Client client : clients) {
            client.in().println("count");
            int from = json(client.answer()).get("ok").asInt();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int now = from;
            while (now < from + more && System.nanoTime() < deadline) {
                Thread.sleep(100);
                client.in().println("count");
                now = json(client.answer()).get("ok").asInt();
            }
            assertTrue(now >= from + more, client.id() + ": " + (now - from) + " new tunnels in 60 s");
        }
    }

    private static double seconds(Instant instant) {
        return instant.getEpochSecond() + instant.getNano() / 1e9;
    }

    /** When {@code daemon} logged each line whose message starts with {@code start}. */
    private static List<Instant> logged(Daemon daemon, String start) throws IOException {
        List<Instant> times = Files.readAllLines(daemon.stderr()).stream()
                .map(UpgradeEndToEndTest::json)
                .filter(line -> line.path("message").asText().startsWith(start))
                .map(line -> Instant.parse(line.get("time").asText()))
                .toList();
        assertFalse(times.isEmpty(), "no log line \"" + start + "...\": " + daemon.log());
        return times;
    }

    /**
     * The pids that listen on a control socket in the test's directory, as {@code ss} shows them:
     * by the name each was bound to, in a private directory beside the path, before it was moved.
     */
    private List<Long> controlHolders() throws Exception {
        Run ss = Run.of(List.of("ss", "-xlpn"), "", 20);
        List<Long> pids = new ArrayList<>();
        for (String line : ss.out().lines().toList()) {
            if (line.contains(" " + dir.resolve(".control-"))) {
                int at = line.indexOf("pid=");
                pids.add(Long.parseLong(line.substring(at + 4, line.indexOf(',', at))));
            }
        }
        return pids;
    }

    /**
     * The figures of docs/benchmarks.md, printed for the run's log: how long the switch took, the
     * time from the last connection the daemon before accepted to the first the successor accepted
     * (the decision lines' times; negative while both accept), and the longest wait of a new tunnel
     * started during the switch (CONNECT sent to 200 read, in the spawns' programs).
     */
    private static void report(Daemon before, Daemon after, Instant first, Instant paused, double longest)
            throws IOException {
        Instant last = accepts(before).max(Instant::compareTo).orElseThrow();
        Instant restored =
                logged(after, "spawn restored from the running daemon").getFirst();
        Instant taken = logged(after, "upgraded from pid").getFirst();
        System.out.printf(
                "upgrade: both accepted for %.1f ms; the successor's first accept came %.1f ms after the last accept"
                        + " before; first spawn restored to path taken %.1f ms; longest new tunnel during the upgrade"
                        + " %.1f ms%n",
                Duration.between(first, paused).toNanos() / 1e6,
                Duration.between(last, first).toNanos() / 1e6,
                Duration.between(restored, taken).toNanos() / 1e6,
                longest * 1000);
    }

    /** When each connection that {@code daemon} decided was accepted, from its decision lines. */
    private static Stream<Instant> accepts(Daemon daemon) throws IOException {
        return Files.readAllLines(daemon.stderr()).stream()
                .filter(line -> line.contains("\"connection\":") && line.contains("\"kind\":\"proxy\""))
                .map(UpgradeEndToEndTest::json)
                .map(line -> Instant.parse(line.get("time").asText()));
    }

    @Test
    void aFailedUpgradeLeavesTheDaemonBeforeServingEverySpawn() throws Exception {
        Daemon before = daemon("before", host);
        assertTrue(before.ready().isPresent(), "no ready line: " + before.log());
        Path token = dir.resolve("kiosk-token");
        Client client = spawn("kiosk", """
                {"id": "kiosk", "proxyPort": 39080, "hosts": [{"target": "93.184.77.10:7", "scheme": "tcp"},
                 {"target": "93.184.77.10:9", "scheme": "tcp"}],
                 "door": {"port": 3001, "routes": [], "tokenFile": "%s"}}""".formatted(token), List.of("python3", "-u", "-c", CLIENT, "39080", "1"));
        assertEquals("running", client.answer());
        awaitTunnels(List.of(client), 5);

        Path bad = Files.writeString(dir.resolve("bad-host.json"), "{\"colour\": 1}");
        Daemon badHost = daemon("bad-host", bad, "--upgrade");
        assertTrue(badHost.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, badHost.process().exitValue(), badHost.log());

        String text = Files.readString(token);
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        Daemon badToken = daemon("bad-token", host, "--upgrade");
        assertTrue(badToken.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, badToken.process().exitValue(), badToken.log());
        assertFalse(badToken.ready().isPresent());
        assertTrue(
                badToken.log()
                        .contains(
                                "upgrade failed, the running daemon serves on: bad-handoff: door.tokenFile: " + token),
                badToken.log());
        assertEquals(text, Files.readString(token), "the token file is the spawn's still");
        assertTrue(before.log().contains("upgrade failed, this daemon serves every spawn on"), before.log());

        assertTrue(before.process().isAlive());
        Run listed = curl("GET", "/spawns/kiosk", null);
        assertEquals(200, status(listed), listed.toString());
        assertEquals("serving", body(listed).get("state").asText());
        assertNotEquals(null, body(listed).get("socket").textValue(), "the daemon before answers");
        assertEquals(List.of(before.process().pid()), controlHolders());
        awaitTunnels(List.of(client), 5);
        client.in().println("stop 0 0");
        JsonNode result = json(client.answer());
        assertEquals(0, result.get("failures").asInt(), result.toString());
        assertEquals(0, result.get("bulkFailed").size(), result.toString());
    }
}
