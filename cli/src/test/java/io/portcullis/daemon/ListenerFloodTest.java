package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.HttpMethod;
import io.portcullis.relay.Relay;
import io.portcullis.relay.ops.ListenerLimits;
import io.portcullis.relay.ops.MetricsListener;
import io.portcullis.relay.ops.Reply;
import io.portcullis.relay.ops.Routes;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.transport.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 #4: another uid held 1,000 connections to the metrics listener, each sending a byte
 * every 20 s; the daemon ran out of descriptors, spawn requests timed out and {@code /healthz}
 * stopped answering. Here real processes (python3, the metrics side under another uid) hold many
 * trickling connections to both operator listeners of a daemon whose deadline is short, or pipeline
 * requests on one connection and read nothing.
 */
@Timeout(120)
class ListenerFloodTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NOBODY = "65534";
    private static final int CONNECTIONS = 150;
    private static final Duration DEADLINE = Duration.ofSeconds(3);
    private static final ListenerLimits LIMITS = new ListenerLimits(32, DEADLINE);
    private static final int PIPELINED = 10_000;

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        processes.forEach(Process::destroyForcibly);
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
    }

    @Test
    void slowClientsOfEitherListenerHoldNoMoreThanTheCapAndAreClosedByTheDeadline() throws Exception {
        Path spawns = Files.createDirectory(dir.resolve("spawns"));
        Path control = dir.resolve("control.sock");
        Relay relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(spawns)
                .decisions(decision -> {})
                .start();
        Daemon daemon = Daemon.start(
                relay,
                control,
                () -> HostConfig.DEFAULTS,
                new Daemon.Settings(Transport.best(), ControlNamespaces.own(), LIMITS));
        closing.add(daemon);
        MetricsListener metrics = MetricsListener.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), daemon.routes(), LIMITS);
        closing.add(metrics);
        Path script = script("trickle.py");
        long before = openFiles();

        BufferedReader scrapers = trickle(
                List.of("setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups"),
                script,
                "tcp",
                metrics.text());
        BufferedReader clients = trickle(List.of(), script, "unix", control.toString());

        long most = 0;
        for (int i = 0; i < 5; i++) {
            most = Math.max(most, openFiles());
            Thread.sleep(100);
        }
        // Beside the caps: connections accepted whose initializer has not run yet (up to 16 a read), the clients'
        // pipes.
        assertTrue(
                most <= before + 2L * LIMITS.connections() + 40,
                "descriptors: " + before + " before, up to " + most + " with " + 2 * CONNECTIONS + " slow clients");
        assertEquals("200 ok", healthz(metrics), "the metrics listener's health, while the flood holds its cap");
        assertEquals(200, ControlClient.call(control, "GET", "/healthz").status());
        ControlClient.Answer opened = ControlClient.call(control, "POST", "/spawns", "{\"id\": \"studio\"}");
        assertEquals(201, opened.status(), opened.body());
        assertEquals(
                204, ControlClient.call(control, "DELETE", "/spawns/studio").status());

        for (BufferedReader summary : List.of(scrapers, clients)) {
            JsonNode held = JSON.readTree(summary.readLine());
            assertEquals(CONNECTIONS, held.get("closed").asInt(), held.toString());
            assertTrue(held.get("longest").asDouble() < DEADLINE.toSeconds() + 3, held.toString());
        }
    }

    /**
     * Issue 26, the attack on #4's fix: a client that pipelined requests back to back and read
     * nothing kept its connection open past the deadline (each request stopped it, each answer armed
     * it again) while the answers piled up on the heap: 118,000 requests held 554 MB. Now a
     * connection carries one exchange: one answer is made, what was sent behind it is never read,
     * and the connection is closed once the answer is sent or at the deadline.
     */
    @Test
    void aClientPipeliningRequestsAndReadingNothingGetsOneAnswerAndIsClosedByTheDeadline() throws Exception {
        Path spawns = Files.createDirectory(dir.resolve("spawns"));
        Path control = dir.resolve("control.sock");
        Relay relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(spawns)
                .decisions(decision -> {})
                .start();
        CountingRoutes controlRoutes = new CountingRoutes(Routes.of(relay));
        Daemon daemon = Daemon.start(
                relay,
                control,
                () -> HostConfig.DEFAULTS,
                new Daemon.Settings(Transport.best(), ControlNamespaces.own(), LIMITS),
                controlRoutes);
        closing.add(daemon);
        CountingRoutes metricsRoutes = new CountingRoutes(Routes.of(relay));
        MetricsListener metrics = MetricsListener.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), metricsRoutes, LIMITS);
        closing.add(metrics);
        Path script = script("pipeline.py");

        BufferedReader scraper = pipeline(
                List.of("setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups"),
                script,
                "tcp",
                metrics.text());
        BufferedReader client = pipeline(List.of(), script, "unix", control.toString());

        assertEquals("200 ok", healthz(metrics), "the metrics listener's health, under the pipelining");
        assertEquals(200, ControlClient.call(control, "GET", "/healthz").status());
        for (BufferedReader summary : List.of(scraper, client)) {
            JsonNode held = JSON.readTree(summary.readLine());
            assertTrue(held.get("closed").isNumber(), "still open after 30 s: " + held);
            assertTrue(held.get("closed").asDouble() < DEADLINE.toSeconds() + 3, held.toString());
        }
        assertEquals(1, metricsRoutes.metrics.get(), "answers made on the metrics listener");
        assertEquals(1, controlRoutes.metrics.get(), "answers made on the control socket");
        assertEquals("200 ok", healthz(metrics));
        assertEquals(200, ControlClient.call(control, "GET", "/healthz").status());
    }

    /** Starts the pipelining client with {@code prefix} (another uid) and waits until it is connected. */
    private BufferedReader pipeline(List<String> prefix, Path script, String kind, String target) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                "/usr/bin/python3", script.toString(), kind, target, Integer.toString(PIPELINED), "100", "0.08", "30"));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        processes.add(process);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("open", out.readLine(), kind + " pipelining client did not connect");
        return out;
    }

    /** The operator's routes, counting the answers made to {@code /metrics}. */
    private static final class CountingRoutes implements Routes {
        private final Routes routes;
        private final AtomicInteger metrics = new AtomicInteger();

        CountingRoutes(Routes routes) {
            this.routes = routes;
        }

        @Override
        public Optional<CompletableFuture<Reply>> answer(HttpMethod method, String path) {
            if (path.equals(METRICS)) {
                metrics.incrementAndGet();
            }
            return routes.answer(method, path);
        }
    }

    /** Starts the trickling client with {@code prefix} (another uid) and waits until its connections are open. */
    private BufferedReader trickle(List<String> prefix, Path script, String kind, String target) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                "/usr/bin/python3", script.toString(), kind, target, Integer.toString(CONNECTIONS), "0.5", "30"));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        processes.add(process);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("open", out.readLine(), kind + " trickler did not connect");
        return out;
    }

    /** A client script of this test, where another uid can read it. */
    private Path script(String name) throws IOException {
        Path folder = Files.createTempDirectory("portcullis-flood-");
        closing.add(() -> {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(folder);
        });
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path script = folder.resolve(name);
        try (InputStream in = ListenerFloodTest.class.getResourceAsStream(name)) {
            Files.write(script, in.readAllBytes());
        }
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        return script;
    }

    /** {@code GET /healthz} over a new connection: the status code and the body's first line. */
    private static String healthz(MetricsListener metrics) throws IOException {
        try (Socket socket =
                new Socket(metrics.address().getAddress(), metrics.address().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            String status = answer.isEmpty() ? "none" : answer.substring(9, 12);
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4).strip();
            return status + " " + body;
        }
    }

    private static long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
