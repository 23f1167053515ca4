package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.owner.testing.PythonListener;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Sender;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The door token never reaches a log line (SPEC R13): {@code ./portcullis relay} with debug
 * logging and a decision log file serves door requests that carry the token in every place a
 * client could put it (the right header, a wrong one, the path, the query, a malformed head, an
 * oversized head, a head that never ends); then its decision log and standard error are scanned.
 * Loopback only: the gateway is python's {@code http.server} on 127.0.0.1 under uid 65534, the
 * uid the host configuration names as the gateway's, so the relay's owner check lets the door
 * reach it (R13 {@code door-gateway}).
 */
class DoorTokenLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    // This test binds the spawn's sockets in the host's namespace: its ports (3001, the proxy on 29080)
    // are below the ephemeral range, so no connection's own local port can hold them.
    private static final int DOOR = 3001;
    private static final int GATEWAY_UID = 65534;

    @TempDir
    Path dir;

    @Test
    void theTokenIsInNoDecisionLineNoStandardErrorLineAndNoAnswer() throws Exception {
        try (HttpServerGateway gateway = HttpServerGateway.start(GATEWAY_UID)) {
            Path log = dir.resolve("decisions.log");
            Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                    {"id": "kiosk", "proxyPort": 29080, "door": {"port": %d, "routes": [{"method": "GET", "path": "/kiosk/state"}],
                     "tokenFile": "%s"}}""".formatted(DOOR, dir.resolve("token")));
            Path host = Files.writeString(dir.resolve("host.json"), """
                    {"owner": {"gatewayUid": %d, "gatewayPort": %d},
                     "limits": {"headerTimeoutMillis": 500, "headerBytes": 1024}, "log": {"file": "%s"}}""".formatted(GATEWAY_UID, gateway.port(), log));
            ProcessBuilder command = Portcullis.command(List.of(
                            "relay",
                            "--spawn",
                            spawn.toString(),
                            "--host",
                            host.toString(),
                            "--dir",
                            Files.createDirectory(dir.resolve("spawns")).toString(),
                            "--log-level",
                            "debug"))
                    .redirectError(dir.resolve("stderr.txt").toFile());
            Process relay = command.start();
            try {
                JsonNode ready = JSON.readTree(
                        new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8))
                                .readLine());
                Path socket = Path.of(ready.get("socket").asText());
                String token = Files.readString(Path.of(ready.get("tokenFile").asText()));
                String key = ready.get("handoffKey").asText();
                handOver(socket, key, ready.get("proxyPort").asInt());
                List<String> answers = new ArrayList<>();
                for (String request : requests(token)) {
                    answers.add(send(request));
                }

                assertTrue(answers.getFirst().startsWith("HTTP/1.1 200 OK\r\n"), answers.getFirst());
                List<String> statuses = answers.stream()
                        .map(a -> a.isEmpty() ? "" : a.substring(9, 12))
                        .toList();
                assertEquals(List.of("200", "403", "403", "403", "400", "403", "431", "408"), statuses);
                answers.forEach(answer -> assertFalse(answer.contains(token), answer));
                relay.getOutputStream().close();
                assertTrue(relay.waitFor(20, TimeUnit.SECONDS));
                assertEquals(0, relay.exitValue());
                String lines = Files.readString(log);
                String stderr = Files.readString(dir.resolve("stderr.txt"));
                // Eight connections; the one that reached the gateway has its end line too (decision D81).
                assertEquals(9, lines.lines().count(), lines);
                assertEquals(
                        1,
                        lines.lines()
                                .filter(line -> line.contains("\"kind\":\"end\""))
                                .count(),
                        lines);
                assertFalse(lines.contains(token), "the token is in the decision log");
                assertFalse(stderr.contains(token), "the token is on standard error");
                assertFalse(lines.contains(token.substring(0, 16)), "part of the token is in the decision log");
                assertFalse(stderr.contains(token.substring(0, 16)), "part of the token is on standard error");
                assertFalse(lines.contains(key.substring(0, 16)), "the hand-over key is in the decision log");
                assertFalse(stderr.contains(key.substring(0, 16)), "the hand-over key is on standard error");
            } finally {
                relay.destroyForcibly();
            }
        }
    }

    private static List<String> requests(String token) {
        String field = "X-Door-Token: " + token + "\r\n";
        return List.of(
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\n" + field + "\r\n",
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + token.substring(1) + "0\r\n\r\n",
                "GET /kiosk/" + token + " HTTP/1.1\r\nHost: d\r\n" + field + "\r\n",
                "GET /kiosk/state?t=" + token + " HTTP/1.1\r\nHost: d\r\n" + field + "\r\n",
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token:\r\n " + token + "\r\n\r\n",
                token + " /kiosk/state HTTP/1.1\r\nHost: d\r\n\r\n",
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\n" + field + "X: " + token.repeat(20) + "\r\n\r\n",
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\n" + field);
    }

    /** Hands over the spawn's proxy and door sockets from this test's namespace, as the entry would. */
    static void handOver(Path socket, String key, int proxyPort) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<Handoff.Socket> sockets = List.of(
                new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(loopback, proxyPort)),
                new Handoff.Socket(Handoff.Kind.DOOR, new InetSocketAddress(loopback, DOOR)));
        String answer = Sender.bindAndHandOver(socket, Handoff.Key.parse(key), sockets, 10_000);
        if (!answer.equals(Handoff.ACCEPTED)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
    }

    private static String send(String request) throws IOException {
        try (SocketChannel channel =
                SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), DOOR))) {
            channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1)));
            InputStream in = Channels.newInputStream(channel);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            try {
                in.transferTo(all);
            } catch (SocketException e) {
                // A reset after the answer: what came is the answer.
            }
            return all.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Python's {@code http.server} as {@code uid} on 127.0.0.1, on a port the kernel picks, serving
     * a world-readable folder that holds {@code kiosk/state}. Closing it kills the process and
     * removes the folder.
     */
    private record HttpServerGateway(Process process, int port, Path folder) implements AutoCloseable {
        private static final Pattern SERVING = Pattern.compile("Serving HTTP on \\S+ port (\\d+) .*");

        static HttpServerGateway start(int uid) throws IOException {
            Path folder = PythonListener.openFolder("portcullis-door-gateway-");
            Path kiosk = Files.createDirectory(folder.resolve("kiosk"));
            Files.writeString(kiosk.resolve("state"), "ok");
            Files.setPosixFilePermissions(kiosk, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(kiosk.resolve("state"), PosixFilePermissions.fromString("rw-r--r--"));
            Process process = new ProcessBuilder(List.of(
                            "setpriv",
                            "--reuid=" + uid,
                            "--regid=" + uid,
                            "--clear-groups",
                            "/usr/bin/python3",
                            "-u",
                            "-m",
                            "http.server",
                            "--bind",
                            "127.0.0.1",
                            "--directory",
                            folder.toString(),
                            "0"))
                    .directory(folder.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String first = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            Matcher serving = SERVING.matcher(first == null ? "" : first);
            HttpServerGateway gateway =
                    new HttpServerGateway(process, serving.matches() ? Integer.parseInt(serving.group(1)) : 0, folder);
            if (gateway.port() == 0) {
                gateway.close();
                throw new IllegalStateException("http.server as uid " + uid + " did not start: " + first);
            }
            return gateway;
        }

        @Override
        public void close() throws IOException {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try (Stream<Path> paths = Files.walk(folder)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }
}
