package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./portcullis daemon} running as a uid of its own, as a unit runs it, and spawns of that
 * uid in rootless walls ({@code unshare -U -r -n}), as issue 26 found them: the control socket
 * serves the daemon's own network namespace and the ones the operator lists, and nothing a spawn
 * can reach or make (#2); a spawn whose hand-over was refused is gone, and the API says why (#17).
 */
@Timeout(180)
class ControlPeersEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UID = "65534";
    private static final List<String> AS_DAEMON_UID =
            List.of("setpriv", "--reuid", UID, "--regid", UID, "--clear-groups");
    private static final List<String> ROOTLESS_WALL = List.of("unshare", "--user", "--map-root-user", "--net");

    private final List<String> namespaces = new ArrayList<>();
    private Path base;
    private Path control;
    private Process daemon;

    @BeforeEach
    void build() throws Exception {
        // Built as root first: the daemon's uid cannot write the build's output.
        Run version = Portcullis.run(List.of("--version"), "");
        assertEquals(0, version.exit(), version.toString());
        base = Files.createTempDirectory("portcullis-control-");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.destroyForcibly().waitFor();
        }
        for (String namespace : namespaces) {
            Run.of(List.of("ip", "netns", "del", namespace), "", 10);
        }
        try (Stream<Path> files = Files.walk(base)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** A network namespace made by root, as an operator's tools make one: {@code /run/netns/NAME}. */
    private String namespace(String name) throws Exception {
        String namespace = "pcw-" + ProcessHandle.current().pid() + "-" + name;
        Run add = Run.of(List.of("ip", "netns", "add", namespace), "", 10);
        assertEquals(0, add.exit(), add.toString());
        namespaces.add(namespace);
        return namespace;
    }

    /** Starts the daemon as {@link #UID} with {@code extra} options; its folder is that uid's. */
    private void start(String... extra) throws Exception {
        Path run = Files.createDirectory(base.resolve("run"));
        Files.setAttribute(run, "unix:uid", Integer.parseInt(UID));
        Files.setAttribute(run, "unix:gid", Integer.parseInt(UID));
        Path host = Files.writeString(base.resolve("host.json"), "{}");
        Files.setPosixFilePermissions(host, PosixFilePermissions.fromString("rw-r--r--"));
        control = run.resolve("control.sock");
        List<String> args = new ArrayList<>(AS_DAEMON_UID);
        args.addAll(List.of(
                Portcullis.root().resolve("portcullis").toString(),
                "daemon",
                "--host",
                host.toString(),
                "--control",
                control.toString(),
                "--dir",
                run.toString()));
        args.addAll(List.of(extra));
        ProcessBuilder builder = Portcullis.command(List.of()).command(args);
        daemon = builder.redirectError(base.resolve("stderr.txt").toFile()).start();
        String line =
                new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null, "no ready line; stderr: " + stderr());
    }

    /** curl over the control socket from {@code where}: exit status, then the body and the status code. */
    private Run curl(List<String> where, String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(where);
        command.addAll(List.of(
                "curl",
                "-sS",
                "--max-time",
                "10",
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
        return Run.of(command, "", 30);
    }

    private static int status(Run run) {
        String out = run.out().strip();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1));
    }

    private static String body(Run run) {
        int end = run.out().lastIndexOf('\n');
        return end < 0 ? "" : run.out().substring(0, end);
    }

    private static List<String> then(List<String> first, List<String> second) {
        List<String> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    private String stderr() throws IOException {
        return Files.readString(base.resolve("stderr.txt"));
    }

    private long refusals() throws IOException {
        return stderr().lines()
                .filter(line -> line.contains("\"message\":\"control connection refused: "))
                .count();
    }

    @Test
    void aNamespaceMadeInsideARootlessSpawnIsRefusedBeforeAnyAnswerAndLoggedOnce() throws Exception {
        start();
        Run served = curl(AS_DAEMON_UID, "POST", "/spawns", "{\"id\": \"bot\"}");
        assertEquals(201, status(served), served.toString());
        List<String> spawn = then(AS_DAEMON_UID, ROOTLESS_WALL);
        String evil = "{\"id\": \"evil\", \"network\": \"internet\"}";

        Run fromSpawn = curl(spawn, "POST", "/spawns", evil);
        // The attack as it was seen: unshare -n inside the spawn, then many tries from there.
        List<String> nested = then(
                spawn,
                List.of(
                        "unshare",
                        "--net",
                        "sh",
                        "-c",
                        "for i in $(seq 20); do curl -sS --max-time 10 --unix-socket \"$0\" -w '%{http_code}\\n'"
                                + " http://portcullis/spawns; done",
                        control.toString()));
        Run fromNested = Run.of(nested, "", 60);

        assertEquals(0, status(fromSpawn), fromSpawn.toString());
        assertEquals("", body(fromSpawn));
        assertEquals(
                List.of(),
                fromNested.out().lines().filter(line -> !line.equals("000")).toList(),
                fromNested.toString());
        assertEquals(20, fromNested.out().lines().count(), fromNested.toString());
        JsonNode spawns = JSON.readTree(body(curl(AS_DAEMON_UID, "GET", "/spawns", null)));
        assertEquals(1, spawns.size(), spawns.toString());
        assertEquals("bot", spawns.get(0).get("id").asText());
        assertEquals(2, refusals(), "one line for the spawn's namespace, one for the nested one: " + stderr());
        assertTrue(stderr().contains("(expected: the daemon's own, or one of --control-netns)"), stderr());
    }

    @Test
    void aNamespaceTheOperatorListsIsServedAndAnotherIsNot() throws Exception {
        String listed = namespace("listed");
        String other = namespace("other");
        start("--control-netns", "/run/netns/" + listed);

        Run inListed = curl(then(List.of("ip", "netns", "exec", listed), AS_DAEMON_UID), "GET", "/healthz", null);
        Run inOther = curl(then(List.of("ip", "netns", "exec", other), AS_DAEMON_UID), "GET", "/healthz", null);
        Run asRoot = curl(List.of(), "GET", "/healthz", null);

        assertEquals(200, status(inListed), inListed.toString());
        assertEquals(0, status(inOther), inOther.toString());
        assertEquals(0, status(asRoot), "root is another uid: " + asRoot);
        assertEquals(200, status(curl(AS_DAEMON_UID, "GET", "/healthz", null)));
    }

    @Test
    void aNamespaceFileThatIsNoNetworkNamespaceIsAConfigurationError() throws Exception {
        Run run = Portcullis.run(
                List.of(
                        "daemon",
                        "--host",
                        Files.writeString(base.resolve("host.json"), "{}").toString(),
                        "--control",
                        base.resolve("c.sock").toString(),
                        "--control-netns",
                        "/proc/self/ns/ipc",
                        "--control-netns",
                        base.resolve("none").toString()),
                "");

        assertEquals(2, run.exit(), run.toString());
        assertTrue(
                run.err().contains("--control-netns: /proc/self/ns/ipc (expected: a network namespace file"),
                run.err());
        assertTrue(run.err().contains("--control-netns: " + base.resolve("none")), run.err());
        assertFalse(Files.exists(base.resolve("c.sock")));
    }

    /** Issue 26 #17: a forged hand-over left the spawn listed, with a socket path that no longer existed. */
    @Test
    void aSpawnWhoseHandOverWasRefusedIsGoneAndTheApiSaysWhy() throws Exception {
        start();
        Path token = base.resolve("run").resolve("bot-token");
        String policy =
                "{\"id\": \"bot\", \"door\": {\"port\": 3001, \"routes\": [], \"tokenFile\": \"" + token + "\"}}";
        Run opened = curl(AS_DAEMON_UID, "POST", "/spawns", policy);
        assertEquals(201, status(opened), opened.toString());
        String socket = JSON.readTree(body(opened)).get("socket").asText();
        assertTrue(Files.exists(token));

        // A broken hand-over from the wall's own side: the spawn's key, then no socket. (Without the
        // key, a connection is turned away and the spawn stays: HandoffPeersEndToEndTest.)
        String key = JSON.readTree(body(opened)).get("handoffKey").asText();
        ProcessBuilder forger = new ProcessBuilder(then(
                AS_DAEMON_UID,
                List.of(
                        "/usr/bin/python3",
                        "-c",
                        "import os, socket, sys\n"
                                + "s = socket.socket(socket.AF_UNIX)\n"
                                + "s.connect(sys.argv[1])\n"
                                + "s.sendall(b'PCH2' + bytes.fromhex(os.environ['KEY']) + b'\\x00')\n"
                                + "print(s.makefile().readline().strip())\n",
                        socket)));
        forger.environment().put("KEY", key);
        Run forged = Run.of(forger, "", 30);
        assertTrue(forged.out().startsWith("refused bad-handoff: "), forged.toString());

        Run list = curl(AS_DAEMON_UID, "GET", "/spawns", null);
        Run shown = curl(AS_DAEMON_UID, "GET", "/spawns/bot", null);

        assertEquals("[]", body(list).strip(), "gone from the list");
        assertEquals(410, status(shown), shown.toString());
        JsonNode why = JSON.readTree(body(shown));
        assertEquals("bad-handoff", why.get("code").asText());
        assertTrue(forged.out().strip().endsWith(why.get("reason").asText()), why + " / " + forged.out());
        assertTrue(stderr().contains("\"message\":\"spawn removed: its hand-over was refused\""), stderr());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Files.exists(token) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(token), "the door token is removed");
        Run again = curl(AS_DAEMON_UID, "POST", "/spawns", policy);
        assertEquals(201, status(again), "the id is free again: " + again);
    }
}
