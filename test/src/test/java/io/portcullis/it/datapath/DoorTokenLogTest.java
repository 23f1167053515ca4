package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.entry.handoff.Handoff;
import io.portcullis.entry.handoff.Sender;
import io.portcullis.it.world.Portcullis;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The door token never reaches a log line (SPEC R13): {@code ./portcullis relay} with debug
 * logging and a decision log file serves door requests that carry the token in every place a
 * client could put it (the right header, a wrong one, the path, the query, a malformed head, an
 * oversized head, a head that never ends); then its decision log and standard error are scanned.
 * Loopback only: the gateway is a server in this JVM on 127.0.0.1.
 */
class DoorTokenLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    // This test binds the spawn's sockets in the host's namespace: its ports (3001, the proxy on 29080)
    // are below the ephemeral range, so no connection's own local port can hold them.
    private static final int DOOR = 3001;

    @TempDir
    Path dir;

    @Test
    void theTokenIsInNoDecisionLineNoStandardErrorLineAndNoAnswer() throws Exception {
        try (ServerSocket gateway = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> answerEach(gateway));
            Path log = dir.resolve("decisions.log");
            Path spawn = Files.writeString(dir.resolve("spawn.json"), """
                    {"id": "kiosk", "proxyPort": 29080, "door": {"port": %d, "routes": [{"method": "GET", "path": "/kiosk/state"}],
                     "tokenFile": "%s"}}""".formatted(DOOR, dir.resolve("token")));
            Path host = Files.writeString(dir.resolve("host.json"), """
                    {"owner": {"gatewayPort": %d}, "limits": {"headerTimeoutMillis": 500, "headerBytes": 1024},
                     "log": {"file": "%s"}}""".formatted(gateway.getLocalPort(), log));
            ProcessBuilder command = Portcullis.command(List.of(
                            "relay",
                            "--spawn",
                            spawn.toString(),
                            "--host",
                            host.toString(),
                            "--dir",
                            Files.createDirectory(dir.resolve("spawns")).toString()))
                    .redirectError(dir.resolve("stderr.txt").toFile());
            command.environment()
                    .merge("PORTCULLIS_JAVA_OPTS", " -Dorg.slf4j.simpleLogger.defaultLogLevel=debug", String::concat);
            Process relay = command.start();
            try {
                JsonNode ready = JSON.readTree(
                        new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8))
                                .readLine());
                Path socket = Path.of(ready.get("socket").asText());
                String token = Files.readString(Path.of(ready.get("tokenFile").asText()));
                handOver(socket, ready.get("proxyPort").asInt());
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
                assertEquals(8, lines.lines().count(), lines);
                assertFalse(lines.contains(token), "the token is in the decision log");
                assertFalse(stderr.contains(token), "the token is on standard error");
                assertFalse(lines.contains(token.substring(0, 16)), "part of the token is in the decision log");
                assertFalse(stderr.contains(token.substring(0, 16)), "part of the token is on standard error");
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
    static void handOver(Path socket, int proxyPort) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<Handoff.Socket> sockets = List.of(
                new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(loopback, proxyPort)),
                new Handoff.Socket(Handoff.Kind.DOOR, new InetSocketAddress(loopback, DOOR)));
        String answer = Sender.bindAndHandOver(socket, sockets, 10_000);
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

    private static void answerEach(ServerSocket gateway) {
        while (!gateway.isClosed()) {
            try (Socket socket = gateway.accept()) {
                socket.setSoTimeout(2000);
                InputStream in = socket.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        break;
                    }
                    head.write(b);
                }
                socket.getOutputStream()
                        .write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                return;
            }
        }
    }
}
