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
 * {@code ./portcullis daemon} as a uid of its own, and spawns of that uid in rootless walls, as the
 * attack on issue 26's fixes ran them. Finding 4: a spawn owns every spawn directory (they are its
 * uid's), so from a namespace made inside itself it connected to another spawn's socket first and
 * handed its own sockets over; now a hand-over must carry the spawn's key, and one that does not
 * is turned away without ending the spawn. Finding 5: a spawn of the daemon's uid without a pid
 * namespace of its own could signal and trace the daemon; now its hand-over is refused.
 */
@Timeout(180)
class HandoffPeersEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UID = "65534";
    private static final List<String> AS_DAEMON_UID =
            List.of("setpriv", "--reuid", UID, "--regid", UID, "--clear-groups");
    /** The rootless wall as the attack found it: user and network namespaces, the host's pids. */
    private static final List<String> ROOTLESS_WALL = List.of("unshare", "--user", "--map-root-user", "--net");
    /** The same wall with a pid namespace of its own. */
    private static final List<String> ROOTLESS_WALL_WITH_PIDS =
            List.of("unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child");

    /**
     * The forger, run inside spawn A: binds what spawn B's policy calls for in its own namespace
     * and hands it over on B's socket with a key of its own choosing; prints the relay's answer.
     */
    private static final String FORGER = """
            import os, socket, sys
            proxy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            proxy.bind(("127.0.0.1", 39080))
            proxy.listen(16)
            dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            dns.bind(("127.0.0.1", 53))
            def entry(kind, port):
                return bytes([kind, 4]) + port.to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(12)
            header = b"PCH2" + os.urandom(32) + bytes([2]) + entry(1, 39080) + entry(5, 53)
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            socket.send_fds(s, [header], [proxy.fileno(), dns.fileno()])
            print(s.makefile().readline().strip())
            """;

    private Path base;
    private Path control;
    private Process daemon;

    @BeforeEach
    void build() throws Exception {
        // Built as root first: the daemon's uid cannot write the build's output.
        Run version = Portcullis.run(List.of("--version"), "");
        assertEquals(0, version.exit(), version.toString());
        base = Files.createTempDirectory("portcullis-handoff-");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.destroyForcibly().waitFor();
        }
        try (Stream<Path> files = Files.walk(base)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Starts the daemon as {@link #UID} with the host configuration {@code hostJson}. */
    private void start(String hostJson) throws Exception {
        Path run = Files.createDirectory(base.resolve("run"));
        Files.setAttribute(run, "unix:uid", Integer.parseInt(UID));
        Files.setAttribute(run, "unix:gid", Integer.parseInt(UID));
        Path host = Files.writeString(base.resolve("host.json"), hostJson);
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
        daemon = Portcullis.command(List.of())
                .command(args)
                .redirectError(base.resolve("stderr.txt").toFile())
                .start();
        String line =
                new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null, "no ready line; stderr: " + stderr());
    }

    /** curl over the control socket as the daemon's uid: the body, then the status code on a line of its own. */
    private Run curl(String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(AS_DAEMON_UID);
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

    private static JsonNode body(Run run) throws IOException {
        int end = run.out().lastIndexOf('\n');
        return JSON.readTree(end < 0 ? "" : run.out().substring(0, end));
    }

    /** Opens spawn {@code id} (a proxy on 39080 and the namespace's DNS); the daemon's answer. */
    private JsonNode open(String id) throws Exception {
        Run opened = curl("POST", "/spawns", "{\"id\": \"" + id + "\"}");
        assertEquals(201, status(opened), opened.toString());
        return body(opened);
    }

    private String state(String id) throws Exception {
        Run shown = curl("GET", "/spawns/" + id, null);
        return status(shown) == 200 ? body(shown).get("state").asText() : "status " + status(shown);
    }

    /**
     * The real entry of {@code spawn}, in {@code wall} as the daemon's uid, with the spawn's key in
     * its environment, as a wall starts it; it exits 0 once the relay took its sockets.
     */
    private Run entry(List<String> wall, JsonNode spawn) throws Exception {
        List<String> command = new ArrayList<>(AS_DAEMON_UID);
        command.addAll(wall);
        command.addAll(List.of(
                "sh",
                "-c",
                "ip link set lo up && exec \"$@\"",
                "sh",
                Portcullis.root().resolve("portcullis").toString(),
                "entry",
                "--relay",
                spawn.get("socket").asText(),
                "--proxy-port",
                spawn.get("proxyPort").asText(),
                "--dns"));
        ProcessBuilder builder = Portcullis.command(List.of()).command(command);
        return Run.of(Portcullis.withKey(builder, spawn.get("handoffKey").asText()), "", 60);
    }

    private String stderr() throws IOException {
        return Files.readString(base.resolve("stderr.txt"));
    }

    @Test
    void aSpawnCannotHandItsSocketsOverOnAnotherSpawnsSocketNorEndIt() throws Exception {
        start("{}");
        open("a");
        JsonNode b = open("b");
        String key = b.get("handoffKey").asText();

        // Inside spawn A's wall (the daemon's uid, as every spawn directory is), a namespace of its own.
        List<String> attack = new ArrayList<>(AS_DAEMON_UID);
        attack.addAll(ROOTLESS_WALL_WITH_PIDS);
        attack.addAll(List.of(
                "unshare",
                "--net",
                "sh",
                "-c",
                "ip link set lo up && exec /usr/bin/python3 -c \"$0\" \"$1\"",
                FORGER,
                b.get("socket").asText()));
        Run forged = Run.of(attack, "", 60);

        assertEquals(0, forged.exit(), forged.toString());
        assertEquals(
                "refused bad-handoff: the message does not carry this spawn's hand-over key (expected: the handoffKey"
                        + " the relay gave the wall, in PORTCULLIS_HANDOFF_KEY)",
                forged.out().strip(),
                forged.toString());
        assertEquals("waiting", state("b"), "B is unaffected");
        assertTrue(Files.exists(Path.of(b.get("socket").asText())), "B's socket still waits for its entry");

        Run real = entry(ROOTLESS_WALL_WITH_PIDS, b);

        assertEquals(0, real.exit(), real.toString());
        assertEquals("serving", state("b"));
        assertTrue(stderr().contains("turned away a connection to its socket that did not show its hand-over key"));
        assertFalse(stderr().contains(key), "the key is never in a log line");
        assertFalse(curl("GET", "/spawns", null).out().contains(key), "nor in a listing");
    }

    @Test
    void anEntryOfTheDaemonsUidWithoutAPidNamespaceOfItsOwnIsRefused() throws Exception {
        start("{}");
        JsonNode shared = open("shared");
        JsonNode own = open("own");

        Run refused = entry(ROOTLESS_WALL, shared);
        Run accepted = entry(ROOTLESS_WALL_WITH_PIDS, own);

        assertEquals(125, refused.exit(), refused.toString());
        assertTrue(
                refused.err().contains("runs as the relay's uid " + UID + " in the relay's pid namespace pid:["),
                refused.toString());
        assertTrue(refused.err().contains("(expected: an entry in a pid namespace of its own"), refused.toString());
        assertEquals("status 410", state("shared"), "a refused hand-over removes its spawn (D58)");
        assertEquals(0, accepted.exit(), accepted.toString());
        assertEquals("serving", state("own"));
    }

    @Test
    void theHostConfigurationMayAllowItExplicitly() throws Exception {
        start("{\"handoff\": {\"allowSharedPidNamespace\": true}}");
        JsonNode shared = open("shared");

        Run accepted = entry(ROOTLESS_WALL, shared);

        assertEquals(0, accepted.exit(), accepted.toString());
        assertEquals("serving", state("shared"));
    }
}
