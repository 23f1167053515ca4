package io.portcullis.it.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import io.portcullis.world.DnsAnswer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code PUT /spawns/{id}} through {@code ./portcullis daemon} (issue 25 #11, SPEC R5): the real
 * entry in a spawn's namespace runs a TLS client through the proxy port to the world's origins;
 * a target the spawn was refused is allowed after the PUT with nothing started again, a tunnel
 * opened under the old policy stays open and carries its request, a PUT that would move the proxy
 * port is refused naming it, and the decision log says which revision judged each connection, with
 * its reason and timings, the tunnel's line written while it was open (issue 25 #7).
 */
@NetnsTest
@Timeout(180)
class SpawnUpdateEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PROXY = 39080;

    /**
     * The spawn's program, one command a line from the test, one answer a line: {@code open NAME}
     * (a tunnel to NAME:443 and a TLS handshake in it, kept), {@code get} (one request over the kept
     * tunnel), {@code try NAME} (a new tunnel, a handshake and one request), each saying the
     * CONNECT's status and the {@code Portcullis-Deny} code or the answer's status line.
     */
    private static final String CLIENT = """
            import socket, ssl, sys
            port = int(sys.argv[1])
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            def say(*words):
                print(*words, flush=True)
            def tunnel(name):
                s = socket.create_connection(("127.0.0.1", port), timeout=20)
                s.sendall(b"CONNECT " + name.encode() + b":443 HTTP/1.1\\r\\n\\r\\n")
                head = b""
                while not head.endswith(b"\\r\\n\\r\\n"):
                    byte = s.recv(1)
                    if not byte:
                        break
                    head += byte
                lines = head.decode().split("\\r\\n")
                deny = [l.split(": ", 1)[1] for l in lines if l.startswith("Portcullis-Deny: ")]
                return s, lines[0].split(" ")[1] if head else "closed", deny[0] if deny else "-"
            def get(t, name):
                t.sendall(b"GET /update HTTP/1.1\\r\\nHost: " + name.encode() + b"\\r\\nConnection: close\\r\\n\\r\\n")
                answer = b""
                while b"\\r\\n" not in answer:
                    more = t.recv(256)
                    if not more:
                        break
                    answer += more
                return answer.split(b"\\r\\n")[0].decode().replace(" ", "_") or "closed"
            kept = None
            for line in sys.stdin:
                words = line.split()
                if words[0] == "open":
                    s, status, deny = tunnel(words[1])
                    if status == "200":
                        kept, kept_name = context.wrap_socket(s, server_hostname=words[1]), words[1]
                    say("open", status, deny)
                elif words[0] == "get":
                    say("get", get(kept, kept_name))
                elif words[0] == "try":
                    s, status, deny = tunnel(words[1])
                    if status != "200":
                        s.close()
                        say("try", status, deny)
                        continue
                    t = context.wrap_socket(s, server_hostname=words[1])
                    say("try", status, get(t, words[1]))
                    t.close()
            """;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private Path control;
    private Path decisions;
    private PrintWriter toClient;
    private BufferedReader fromClient;

    @BeforeEach
    void zone() {
        world.zone()
                .set("www.example.test", DnsAnswer.of("93.184.77.10"))
                .set("origin.test", DnsAnswer.of("93.184.77.10"));
    }

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
    }

    private Process started(ProcessBuilder builder) throws IOException {
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    private static String policy(String name, int proxyPort) {
        return """
                {"id": "live", "proxyPort": %d, "hosts": [{"target": "%s:443", "scheme": "https"}]}""".formatted(proxyPort, name);
    }

    /** The daemon, the spawn {@code live} listing {@code origin.test:443}, and its entry running {@link #CLIENT}. */
    private void start() throws Exception {
        decisions = dir.resolve("decisions.log");
        Path host = Files.writeString(
                dir.resolve("host.json"),
                "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]}, \"log\": {\"file\": \""
                        + decisions + "\"}}");
        control = dir.resolve("control.sock");
        Process daemon = started(Portcullis.command(List.of(
                        "daemon",
                        "--host",
                        host.toString(),
                        "--control",
                        control.toString(),
                        "--dir",
                        Files.createDirectory(dir.resolve("spawns")).toString()))
                .redirectError(dir.resolve("daemon-stderr.txt").toFile()));
        String ready =
                new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(ready != null, "no ready line: " + Files.readString(dir.resolve("daemon-stderr.txt")));

        Run opened = curl("POST", "/spawns", policy("origin.test", PROXY));
        assertEquals(201, status(opened), opened.toString());
        JsonNode spawn = body(opened);
        Process client = started(Portcullis.entryInSpawnNamespace(
                        Path.of(spawn.get("socket").asText()),
                        spawn.get("handoffKey").asText(),
                        List.of(
                                "--ready-fd",
                                "2",
                                "--proxy-port",
                                spawn.get("proxyPort").asText(),
                                "--dns"),
                        List.of(
                                "python3",
                                "-u",
                                "-c",
                                CLIENT,
                                spawn.get("proxyPort").asText()))
                .redirectError(dir.resolve("entry-stderr.txt").toFile()));
        toClient = new PrintWriter(client.getOutputStream(), true, StandardCharsets.UTF_8);
        fromClient = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
    }

    private String ask(String command) throws Exception {
        toClient.println(command);
        String line = fromClient.readLine();
        assertTrue(
                line != null,
                "the client ended; entry: " + Files.readString(dir.resolve("entry-stderr.txt")) + "; daemon: "
                        + Files.readString(dir.resolve("daemon-stderr.txt")));
        return line;
    }

    /** curl over the control socket: the body, then the status code on a line of its own. */
    private Run curl(String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "curl",
                "-sS",
                "--max-time",
                "10",
                "--unix-socket",
                control.toString(),
                "-X",
                method,
                "-w",
                "\n%{http_code}"));
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
        return JSON.readTree(run.out().substring(0, run.out().lastIndexOf('\n')));
    }

    /** The decision log's lines, once it holds at least {@code count}. */
    private List<JsonNode> lines(int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> text = List.of();
        while (System.nanoTime() < deadline) {
            text = Files.exists(decisions) ? Files.readAllLines(decisions) : List.of();
            if (text.size() >= count) {
                break;
            }
            Thread.sleep(50);
        }
        assertTrue(text.size() >= count, count + " lines expected: " + text);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    private static JsonNode only(List<JsonNode> lines, String kind, String target, boolean open) {
        List<JsonNode> found = lines.stream()
                .filter(line -> line.get("kind").asText().equals(kind)
                        && line.get("target").asText().equals(target)
                        && (kind.equals("end") || line.get("open").asBoolean() == open))
                .toList();
        assertEquals(1, found.size(), kind + " " + target + " open " + open + " in " + lines);
        return found.getFirst();
    }

    @Test
    void aPutAllowsANewTargetWithoutARestartAndAnOpenTunnelKeepsItsPolicy() throws Exception {
        start();
        assertEquals("open 200 -", ask("open origin.test"));
        assertEquals("try 403 not-listed", ask("try www.example.test"));

        Run put = curl("PUT", "/spawns/live", policy("www.example.test", PROXY));

        assertEquals(200, status(put), put.toString());
        assertEquals(2, body(put).get("revision").asLong(), put.toString());
        assertEquals("try 200 HTTP/1.1_200_OK", ask("try www.example.test"), "allowed with no restart");
        assertEquals("try 403 not-listed", ask("try origin.test"), "the new policy no longer lists it");
        assertEquals("get HTTP/1.1_200_OK", ask("get"), "the tunnel opened under revision 1 is still open");

        Run refused = curl("PUT", "/spawns/live", policy("www.example.test", PROXY + 1));
        assertEquals(400, status(refused), refused.toString());
        JsonNode errors = body(refused).get("errors");
        assertEquals(1, errors.size(), refused.toString());
        assertTrue(
                errors.get(0).asText().startsWith("proxyPort: " + (PROXY + 1) + " (expected: " + PROXY),
                refused.toString());
        JsonNode shown = body(curl("GET", "/spawns/live", null));
        assertEquals(2, shown.get("revision").asLong(), shown.toString());
        assertEquals(1, shown.get("openConnections").asInt(), "the kept tunnel: " + shown);
        assertTrue(shown.get("bytesDown").asLong() > 0, "what the open tunnel carried shows: " + shown);

        // The kept tunnel's decision line is in the log while it is open, and judged under revision 1.
        List<JsonNode> lines = lines(5);
        JsonNode kept = only(lines, "proxy", "origin.test:443", true);
        assertEquals(1, kept.get("revision").asLong(), kept.toString());
        assertEquals("allow", kept.get("verdict").asText());
        assertEquals("listed https entry", kept.get("reason").asText(), kept.toString());
        assertTrue(kept.get("timings").get("dnsMicros").asLong() > 0, kept.toString());
        assertTrue(kept.get("timings").get("ownerMicros").isNull(), "not this host's: " + kept);
        assertTrue(kept.get("timings").get("connectMicros").asLong() > 0, kept.toString());
        assertEquals(
                1,
                only(lines, "proxy", "www.example.test:443", false)
                        .get("revision")
                        .asLong());
        JsonNode allowed = only(lines, "proxy", "www.example.test:443", true);
        assertEquals(2, allowed.get("revision").asLong(), allowed.toString());
        JsonNode refusal = only(lines, "proxy", "origin.test:443", false);
        assertEquals(2, refusal.get("revision").asLong(), refusal.toString());
        assertEquals("not-listed", refusal.get("code").asText());
        assertEquals(
                "origin.test:443 is not listed and the network is listed",
                refusal.get("reason").asText());

        toClient.close();
        JsonNode end = only(lines(6), "end", "origin.test:443", false);
        assertEquals(kept.get("connection").asLong(), end.get("connection").asLong());
        assertTrue(end.get("bytesDown").asLong() > 0, end.toString());
    }
}
