package io.portcullis.relay.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.relay.Relay;
import io.portcullis.relay.policy.HostConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The metrics listener over real TCP, in the test JVM's own network namespace (loopback only, so
 * a listener on 0.0.0.0 is reachable from nowhere else).
 */
@Timeout(60)
class MetricsListenerTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
    }

    private Relay relay() throws Exception {
        Relay relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(dir)
                .decisions(decision -> {})
                .threads(2)
                .start();
        closing.add(relay);
        return relay;
    }

    private MetricsListener listen(InetAddress address, Relay relay) throws Exception {
        MetricsListener listener = MetricsListener.start(new InetSocketAddress(address, 0), Routes.of(relay));
        closing.add(listener);
        return listener;
    }

    private static HttpResponse<String> send(MetricsListener listener, String method, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://" + listener.text() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** method | path | status | what the body holds ("-": nothing). */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET    | /metrics     | 200 | portcullis_build_info{commit=",
                "GET    | /metrics     | 200 | jvm_memory_used_bytes",
                "GET    | /metrics     | 200 | process_cpu_seconds_total",
                "GET    | /metrics     | 200 | portcullis_spawns_open 0.0",
                "HEAD   | /metrics     | 200 | -",
                "GET    | /healthz     | 200 | ok",
                "GET    | /readyz      | 200 | ready",
                "POST   | /metrics     | 405 | method: not allowed (expected: GET, HEAD)",
                "DELETE | /readyz      | 405 | method: not allowed (expected: GET, HEAD)",
                "GET    | /spawns      | 404 | (expected: /metrics, /healthz or /readyz)",
                "GET    | /metrics/x   | 404 | path: /metrics/x",
            })
    void theRoutesAnswer(String method, String path, int status, String body) throws Exception {
        MetricsListener listener = listen(InetAddress.getLoopbackAddress(), relay());

        HttpResponse<String> response = send(listener, method, path);

        assertEquals(status, response.statusCode(), response.body());
        if (body.equals("-")) {
            assertEquals("", response.body());
            assertTrue(
                    Long.parseLong(response.headers()
                                    .firstValue("content-length")
                                    .orElseThrow())
                            > 0,
                    "HEAD names the body's length");
        } else {
            assertTrue(response.body().contains(body), response.body());
        }
    }

    @Test
    void onceTheRelayIsClosedItIsNeitherReadyNorHealthy() throws Exception {
        Relay relay = relay();
        MetricsListener listener = listen(InetAddress.getLoopbackAddress(), relay);

        relay.close();

        HttpResponse<String> ready = send(listener, "GET", "/readyz");
        assertEquals(503, ready.statusCode());
        assertEquals("closed\n", ready.body());
        assertEquals(503, send(listener, "GET", "/healthz").statusCode());
    }

    @Test
    void aNonLoopbackAddressIsWarnedAboutAndALoopbackOneIsNot() throws Exception {
        Relay relay = relay();
        List<JsonNode> lines = logged(() -> {
            listen(InetAddress.getLoopbackAddress(), relay);
            listen(InetAddress.ofLiteral("0.0.0.0"), relay);
        });

        List<JsonNode> warnings = lines.stream()
                .filter(line -> line.get("level").asText().equals("warn"))
                .toList();
        assertEquals(1, warnings.size(), lines.toString());
        assertTrue(
                warnings.getFirst().get("message").asText().startsWith("--metrics-listen: 0.0.0.0:"),
                warnings.toString());
        assertTrue(warnings.getFirst().get("message").asText().contains("not a loopback address"));
    }

    @Test
    void aTakenPortIsAnErrorNamingTheOption() throws Exception {
        Relay relay = relay();
        MetricsListener first = listen(InetAddress.getLoopbackAddress(), relay);

        Exception e = org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class, () -> MetricsListener.start(first.address(), Routes.of(relay)));

        assertTrue(e.getMessage().startsWith("--metrics-listen: " + first.text() + ": "), e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    private interface Action {
        void run() throws Exception;
    }

    /** The operational log lines that {@code action} wrote on standard error. */
    private static List<JsonNode> logged(Action action) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(err);
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).lines().toList()) {
            // Jazzer's agent, loaded in this JVM by a fuzz test that ran earlier, reports each class
            // it instruments on standard error as the class loads; that is not the relay's log.
            if (!line.startsWith("INFO: Instrumented ")) {
                lines.add(new ObjectMapper().readTree(line));
            }
        }
        return lines;
    }
}
