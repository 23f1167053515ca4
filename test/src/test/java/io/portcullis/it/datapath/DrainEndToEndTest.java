package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import java.io.BufferedReader;
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
 * SIGTERM drains {@code ./portcullis relay} (SPEC R43): the real entry in a spawn's namespace runs
 * a client that holds a CONNECT tunnel to the world's echo origin; after SIGTERM the tunnel still
 * carries bytes, a new connection in the namespace is refused, {@code /readyz} is 503, and the
 * relay exits 0 once the tunnel ends, or closes it when the drain time is up.
 */
@NetnsTest
@Timeout(180)
class DrainEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The spawn's program: one tunnel through the proxy port, then one command a line from the
     * test, one answer a line: {@code echo} (a round trip through the tunnel), {@code new} (a new
     * connection to the proxy port: connected or refused), {@code wait-close} (until the relay
     * closes the tunnel), {@code end} (closes it and exits).
     */
    private static final String CLIENT = """
            import socket, sys
            port = int(sys.argv[1])
            def say(*words):
                print(*words, flush=True)
            t = socket.create_connection(("127.0.0.1", port), timeout=20)
            t.sendall(b"CONNECT 93.184.77.10:7 HTTP/1.1\\r\\n\\r\\n")
            head = b""
            while not head.endswith(b"\\r\\n\\r\\n"):
                byte = t.recv(1)
                if not byte:
                    say("closed before the answer")
                    sys.exit(1)
                head += byte
            say("open", head.split(b"\\r\\n")[0].decode())
            for line in sys.stdin:
                command = line.strip()
                if command == "echo":
                    try:
                        t.sendall(b"ping\\n")
                        say("echo", t.recv(64).decode().strip() or "closed")
                    except OSError as e:
                        say("echo", "error", e)
                elif command == "new":
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=5).close()
                        say("new", "connected")
                    except ConnectionRefusedError:
                        say("new", "refused")
                    except OSError as e:
                        say("new", "error", e)
                elif command == "wait-close":
                    t.settimeout(60)
                    try:
                        say("tunnel", "closed" if not t.recv(64) else "data")
                    except OSError as e:
                        say("tunnel", "closed", e)
                elif command == "end":
                    t.close()
                    say("ended")
                    break
            """;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private Process relay;
    private JsonNode ready;
    private PrintWriter toClient;
    private BufferedReader fromClient;

    @BeforeEach
    void zone() {
        world.zone().clear();
    }

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
    }

    /** Starts the relay with {@code --drain drain}, then the entry and its client, whose tunnel is open. */
    private void start(int drain) throws Exception {
        Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                {"id": "drain", "proxyPort": 39080, "hosts": [{"target": "93.184.77.10:7", "scheme": "tcp"}]}""");
        Path host = Files.writeString(
                dir.resolve("host.json"),
                "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"]}}");
        relay = started(Portcullis.command(List.of(
                        "relay",
                        "--spawn",
                        spawn.toString(),
                        "--host",
                        host.toString(),
                        "--dir",
                        Files.createDirectory(dir.resolve("spawns")).toString(),
                        "--drain",
                        String.valueOf(drain),
                        "--metrics-listen",
                        "127.0.0.1:0"))
                .redirectError(dir.resolve("relay-stderr.txt").toFile()));
        String line =
                new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null, "no ready line: " + Files.readString(dir.resolve("relay-stderr.txt")));
        ready = JSON.readTree(line);
        String proxyPort = ready.get("proxyPort").asText();
        // The entry binds what the ready line names: the proxy port, each named entry, the DNS socket.
        List<String> sockets = new ArrayList<>(List.of("--ready-fd", "2", "--proxy-port", proxyPort, "--dns"));
        ready.get("named")
                .forEach(named ->
                        sockets.addAll(List.of("--named", named.get("address").asText())));
        Process client = started(Portcullis.entryInSpawnNamespace(
                        Path.of(ready.get("socket").asText()),
                        ready.get("handoffKey").asText(),
                        sockets,
                        List.of("python3", "-u", "-c", CLIENT, proxyPort))
                .redirectError(dir.resolve("entry-stderr.txt").toFile()));
        toClient = new PrintWriter(client.getOutputStream(), true, StandardCharsets.UTF_8);
        fromClient = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("open HTTP/1.1 200 Connection established", answer(), "the tunnel did not open");
    }

    private Process started(ProcessBuilder builder) throws Exception {
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    private String ask(String command) throws Exception {
        toClient.println(command);
        return answer();
    }

    private String answer() throws Exception {
        String line = fromClient.readLine();
        assertTrue(
                line != null,
                "the client ended; entry: " + Files.readString(dir.resolve("entry-stderr.txt")) + "; relay: "
                        + Files.readString(dir.resolve("relay-stderr.txt")));
        return line;
    }

    /**
     * SIGTERM alone: {@link Process#destroy()} would also close the relay's standard input, its
     * lifeline, whose end stops it at once.
     */
    private void sigterm() throws Exception {
        Run kill = Run.of(List.of("kill", "-TERM", Long.toString(relay.pid())), "", 10);
        assertEquals(0, kill.exit(), kill.toString());
    }

    private String relayLog() throws Exception {
        return Files.readString(dir.resolve("relay-stderr.txt"));
    }

    private int readyz() throws Exception {
        Run curl = Run.of(
                List.of(
                        "curl",
                        "-s",
                        "-o",
                        "/dev/null",
                        "-w",
                        "%{http_code}",
                        "--max-time",
                        "5",
                        "http://" + ready.get("metrics").asText() + "/readyz"),
                "",
                20);
        return Integer.parseInt(curl.out().strip());
    }

    /** Asks for new connections until one is refused, as draining makes them, within 10 s. */
    private void awaitRefused() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String answer = "";
        while (System.nanoTime() < deadline && !(answer = ask("new")).equals("new refused")) {
            Thread.sleep(100);
        }
        assertEquals("new refused", answer);
    }

    @Test
    void afterSigtermTheOpenTunnelCarriesOnNewConnectionsAreRefusedAndTheRelayExitsOnceItEnds() throws Exception {
        start(60);
        assertEquals("echo ping", ask("echo"));
        assertEquals(200, readyz());

        sigterm();
        awaitRefused();

        assertEquals(503, readyz(), "ready while draining: " + relayLog());
        assertEquals("echo ping", ask("echo"), "the open tunnel stopped carrying bytes: " + relayLog());
        assertTrue(relay.isAlive(), "the relay did not wait for the open tunnel");
        assertEquals("ended", ask("end"));
        long ended = System.nanoTime();
        assertTrue(relay.waitFor(30, TimeUnit.SECONDS), "no exit 30 s after the last tunnel ended");
        assertTrue(System.nanoTime() - ended < TimeUnit.SECONDS.toNanos(30));
        assertEquals(0, relay.exitValue());
        assertFalse(Files.exists(Path.of(ready.get("socket").asText()).getParent()));
    }

    @Test
    void aTunnelStillOpenWhenTheDrainTimeIsUpIsClosedAndTheRelayExitsZero() throws Exception {
        int drain = 3;
        start(drain);
        assertEquals("echo ping", ask("echo"));

        long signalled = System.nanoTime();
        sigterm();
        awaitRefused();
        assertEquals("echo ping", ask("echo"), relayLog());

        String end = ask("wait-close");
        assertTrue(end.startsWith("tunnel closed"), end);
        long closedAfter = System.nanoTime() - signalled;
        assertTrue(closedAfter >= TimeUnit.SECONDS.toNanos(drain), "closed before the drain time was up");
        assertTrue(relay.waitFor(drain + 20, TimeUnit.SECONDS), "no exit within the drain time and 20 s");
        assertEquals(0, relay.exitValue());
    }
}
