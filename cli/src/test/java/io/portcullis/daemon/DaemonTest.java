package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.Relay;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.RemoteEntry;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Sender;
import io.portcullis.wire.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The daemon with a real control socket, real spawn sockets and a loopback origin. */
@Timeout(90)
class DaemonTest {
    @TempDir
    Path dir;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Daemon daemon;
    private Path control;
    private Path spawns;
    private LoopbackOrigin origin;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
        if (daemon != null) {
            daemon.close();
            assertFalse(Files.exists(control), "control socket removed");
            try (Stream<Path> left = Files.list(spawns)) {
                assertEquals(List.of(), left.toList(), "every spawn directory removed");
            }
        }
    }

    /** A daemon over {@code hostJson} (re-read from its file on reload); {@code judge} null for the policy's judge. */
    private void start(String hostJson, Judge judge) throws Exception {
        // On 127.0.0.1: the spawns' sockets are in the remote entry's namespace, so nothing here takes its port.
        origin = closing(LoopbackOrigin.echo(InetAddress.getLoopbackAddress()));
        spawns = Files.createDirectory(dir.resolve("spawns"));
        control = dir.resolve("control.sock");
        Path hostFile = dir.resolve("host.json");
        Files.writeString(hostFile, hostJson);
        Relay.Builder builder = Relay.builder(HostConfigJson.read(hostFile))
                .directory(spawns)
                .decisions(decisions::add)
                .ownerCheck(query -> CompletableFuture.completedFuture(OwnerAnswer.allow("test", OwnerEvidence.NONE)));
        if (judge != null) {
            builder.judge(judge);
        }
        daemon = Daemon.start(builder.start(), control, () -> HostConfigJson.read(hostFile));
    }

    private void start() throws Exception {
        start("{}", this::forwardsOnly);
    }

    /** Forwards are allowed and dialed to the origin, anything else is not listed. */
    private CompletableFuture<Verdict> forwardsOnly(SpawnPolicy spawn, Request request) {
        return CompletableFuture.completedFuture(
                request.kind() == Request.Kind.FORWARD
                        ? new Verdict.Allow(
                                List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")
                        : new Verdict.Deny(DenyCode.NOT_LISTED, "test"));
    }

    /** The ports of one spawn's sockets: a proxy port of its own, and a forward to the origin's port. */
    private record Ports(int proxy, int forward) {}

    private final Map<String, Ports> ports = new ConcurrentHashMap<>();
    private final Set<String> handedOver = ConcurrentHashMap.newKeySet();

    private RemoteEntry entry;

    private String policy(String id) {
        Ports taken = ports.computeIfAbsent(id, any -> {
            // The first spawn forwards the origin's own port, for the policy's judge; later ones a free
            // port each, which the test's judge sends to the origin, since all share one namespace.
            List<Integer> free = FreePorts.take(2);
            return new Ports(free.get(0), ports.isEmpty() ? origin.port() : free.get(1));
        });
        return "{\"id\": \"" + id + "\", \"proxyPort\": " + taken.proxy() + ", \"hosts\": [{\"target\": \"127.0.0.1:"
                + taken.forward() + "\", \"scheme\": \"tcp\"}]}";
    }

    private Ports ports(JsonNode spawn) {
        return ports.get(spawn.get("id").asText());
    }

    /** The entry's hand-over of {@code spawn}'s sockets, once. */
    private void handOver(JsonNode spawn) throws IOException {
        if (handedOver.add(spawn.get("id").asText())) {
            Ports taken = ports(spawn);
            if (entry == null) {
                entry = closing(RemoteEntry.start());
            }
            entry.handOver(
                    Path.of(spawn.get("socket").asText()),
                    spawn.get("handoffKey").asText(),
                    taken.proxy(),
                    List.of(taken.forward()));
        }
    }

    private SpawnClient proxy(JsonNode spawn, String first) throws IOException {
        handOver(spawn);
        SpawnClient client = entry.connect(ports(spawn).proxy());
        client.write(first);
        return client;
    }

    /** A connection to {@code spawn}'s forward, as a program in the namespace makes it. */
    private SpawnClient forward(JsonNode spawn) throws IOException {
        handOver(spawn);
        return entry.connect(ports(spawn).forward());
    }

    private JsonNode open(String id) throws IOException {
        ControlClient.Answer answer = ControlClient.call(control, "POST", "/spawns", policy(id));
        assertEquals(201, answer.status(), answer.body());
        return answer.json();
    }

    private SpawnClient tunnel(JsonNode spawn) throws IOException {
        return closing(forward(spawn));
    }

    private static void assertEchoes(SpawnClient client, String text) throws IOException {
        client.write(text);
        assertArrayEquals(text.getBytes(StandardCharsets.ISO_8859_1), client.readExactly(text.length()));
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }

    @Test
    void aSpawnIsOpenedListedShownAndClosed() throws Exception {
        start();
        JsonNode spawn = open("studio");

        assertEquals("studio", spawn.get("id").asText());
        assertEquals(ports(spawn).proxy(), spawn.get("proxyPort").asInt());
        assertEquals(origin.port(), spawn.get("forwards").get(0).asInt());
        assertTrue(spawn.get("door").isNull());
        assertTrue(spawn.get("tokenFile").isNull());
        Path socket = Path.of(spawn.get("socket").asText());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(control)));
        assertEquals(
                "studio",
                ControlClient.call(control, "GET", "/spawns")
                        .json()
                        .get(0)
                        .get("id")
                        .asText());
        assertEquals(
                socket.toString(),
                ControlClient.call(control, "GET", "/spawns/studio")
                        .json()
                        .get("socket")
                        .asText());
        assertTrue(spawn.get("handoffKey").asText().matches("[0-9a-f]{64}"), spawn.toString());
        String shown = ControlClient.call(control, "GET", "/spawns/studio").body()
                + ControlClient.call(control, "GET", "/spawns").body();
        assertFalse(shown.contains("handoffKey"), "the key is the opener's alone: " + shown);
        assertFalse(shown.contains(spawn.get("handoffKey").asText()), shown);

        assertEquals(
                204, ControlClient.call(control, "DELETE", "/spawns/studio").status());
        assertFalse(Files.exists(socket.getParent()));
        assertEquals(0, ControlClient.call(control, "GET", "/spawns").json().size());
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET    | /nowhere        | 404",
                "GET    | /spawns/ghost   | 404",
                "PUT    | /spawns/ghost   | 404",
                "DELETE | /spawns/ghost   | 404",
                "PUT    | /spawns         | 405",
                "POST   | /metrics        | 405",
                "POST   | /healthz        | 405",
                "PUT    | /readyz         | 405",
                "GET    | /reload         | 405",
                "POST   | /spawns/studio  | 405",
                "GET    | /spawns/a/b     | 404",
            })
    void aRequestTheApiDoesNotServeIsAnswered(String method, String path, int status) throws Exception {
        start();
        ControlClient.Answer answer = ControlClient.call(control, method, path);

        assertEquals(status, answer.status());
        assertEquals(1, answer.json().get("errors").size(), answer.body());
    }

    /** The operator's routes on the control socket, as on the metrics listener. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET  | /healthz | 200 | ok",
                "GET  | /readyz  | 200 | ready",
                "GET  | /metrics | 200 | portcullis_build_info{",
                "GET  | /metrics | 200 | jvm_threads_current",
                "HEAD | /readyz  | 200 | ''",
            })
    void theOperatorsRoutesAnswerOnTheControlSocket(String method, String path, int status, String body)
            throws Exception {
        start();
        ControlClient.Answer answer = ControlClient.call(control, method, path);

        assertEquals(status, answer.status(), answer.body());
        assertTrue(body.isEmpty() ? answer.body().isEmpty() : answer.body().contains(body), answer.body());
    }

    /** curl over the control socket from {@code wall}'s namespaces: its exit status, then what it printed. */
    private String curlFrom(List<String> wall, String method, String path, String body) throws Exception {
        List<String> command = new ArrayList<>(wall);
        command.addAll(List.of(
                "curl",
                "-sS",
                "--max-time",
                "10",
                "--unix-socket",
                control.toString(),
                "-w",
                "%{http_code}",
                "-X",
                method));
        if (body != null) {
            command.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", body));
        }
        command.add("http://portcullis" + path);
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(curl.waitFor(30, TimeUnit.SECONDS), "curl did not end");
        return curl.exitValue() + " " + new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /**
     * Issue 26 #2: a spawn that runs as the daemon's uid in a rootless wall ran {@code unshare -n}
     * inside itself, and from that nested namespace the control socket listed every spawn and
     * opened one with the internet. Every namespace but the daemon's own is refused before a byte.
     */
    @Test
    void aNamespaceMadeInsideARootlessSpawnIsRefusedBeforeAnyAnswer() throws Exception {
        start();
        open("studio");
        List<String> spawn = List.of("unshare", "--user", "--map-root-user", "--net");
        List<String> nested = List.of("unshare", "--user", "--map-root-user", "--net", "unshare", "--net");
        String evil = "{\"id\": \"evil\", \"network\": \"internet\"}";

        for (List<String> wall : List.of(spawn, nested)) {
            String listed = curlFrom(wall, "GET", "/spawns", null);
            String opened = curlFrom(wall, "POST", "/spawns", evil);

            assertTrue(listed.endsWith("000") && !listed.startsWith("0 "), wall + ": " + listed);
            assertFalse(listed.contains("studio"), wall + ": " + listed);
            assertTrue(opened.endsWith("000") && !opened.startsWith("0 "), wall + ": " + opened);
        }
        assertEquals("0 200", curlFrom(List.of(), "GET", "/healthz", null).replaceAll("ok\\s*", ""));
        JsonNode spawns = ControlClient.call(control, "GET", "/spawns").json();
        assertEquals(1, spawns.size(), spawns.toString());
        assertEquals("studio", spawns.get(0).get("id").asText());
    }

    /**
     * Issue 26 #17: a spawn whose hand-over was refused stayed listed, with a socket path that no
     * longer existed. Now it is removed (its id free, its door token gone) and the API says why.
     */
    @Test
    void aSpawnWhoseHandOverWasRefusedIsGoneAndTheApiSaysWhy() throws Exception {
        start();
        Path token = dir.resolve("kiosk-token");
        String policy =
                "{\"id\": \"kiosk\", \"door\": {\"port\": 3001, \"routes\": [], \"tokenFile\": \"" + token + "\"}}";
        ControlClient.Answer opened = ControlClient.call(control, "POST", "/spawns", policy);
        assertEquals(201, opened.status(), opened.body());
        assertTrue(Files.exists(token));

        // A connection without the key is turned away, and the spawn stays (finding 4 of the review of issue 26).
        int stranger = Posix.connectUnix(opened.json().get("socket").asText(), 10_000);
        try {
            Posix.sendAll(stranger, "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0);
            assertTrue(Sender.answer(stranger, 10_000).startsWith(Handoff.REFUSED));
        } finally {
            Posix.closeQuietly(stranger);
        }
        assertEquals(200, ControlClient.call(control, "GET", "/spawns/kiosk").status(), "still open");
        // The wall's own entry with the spawn's key, and no socket: its one hand-over, refused.
        int connection = Posix.connectUnix(opened.json().get("socket").asText(), 10_000);
        String answer;
        try {
            Handoff.Key key = Handoff.Key.parse(opened.json().get("handoffKey").asText());
            byte[] header = new Handoff(
                            key,
                            List.of(new Handoff.Socket(
                                    Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 39080))))
                    .encode();
            Posix.sendAll(connection, header, 0);
            answer = Sender.answer(connection, 10_000);
        } finally {
            Posix.closeQuietly(connection);
        }
        assertTrue(answer.startsWith(Handoff.REFUSED), answer);

        assertEquals(0, ControlClient.call(control, "GET", "/spawns").json().size(), "gone from the list");
        ControlClient.Answer gone = ControlClient.call(control, "GET", "/spawns/kiosk");
        assertEquals(410, gone.status(), gone.body());
        assertEquals("bad-handoff", gone.json().get("code").asText());
        assertTrue(answer.endsWith(gone.json().get("reason").asText()), gone.body() + " / " + answer);
        assertTrue(gone.json().get("errors").get(0).asText().startsWith("spawn: kiosk (expected: an open spawn;"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((Files.exists(token) || daemon.relay().spawn("kiosk").isPresent()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(token), "the door token is removed");
        assertTrue(daemon.relay().spawn("kiosk").isEmpty(), "the relay closed it");
        assertEquals(410, ControlClient.call(control, "DELETE", "/spawns/kiosk").status());

        ControlClient.Answer again = ControlClient.call(control, "POST", "/spawns", policy);
        assertEquals(201, again.status(), again.body());
        assertEquals(200, ControlClient.call(control, "GET", "/spawns/kiosk").status());
    }

    @Test
    void aBadPolicyIsRefusedWithEveryProblem() throws Exception {
        start();
        ControlClient.Answer answer = ControlClient.call(
                control,
                "POST",
                "/spawns",
                "{\"id\": \"studio\", \"network\": \"some\", \"hosts\": [{\"target\": \"*.lan:80\"}], \"colour\": 1}");

        assertEquals(400, answer.status());
        assertEquals(4, answer.json().get("errors").size(), answer.body());
        assertEquals(
                400, ControlClient.call(control, "POST", "/spawns", "not json").status());
        try (Stream<Path> left = Files.list(spawns)) {
            assertEquals(0, left.count());
        }
    }

    @Test
    void aSecondSpawnWithTheSameIdIsAConflict() throws Exception {
        start();
        JsonNode first = open("studio");

        ControlClient.Answer again = ControlClient.call(control, "POST", "/spawns", policy("studio"));

        assertEquals(409, again.status());
        assertTrue(again.json().get("errors").get(0).asText().contains("studio"), again.body());
        assertTrue(Files.exists(Path.of(first.get("socket").asText())), "the first spawn stays");
    }

    @Test
    void aBodyOverTheLimitIsRefused() throws Exception {
        start();
        String big = "{\"id\": \"studio\", \"pad\": \"" + "x".repeat(Daemon.MAX_BODY_BYTES) + "\"}";

        assertEquals(413, ControlClient.call(control, "POST", "/spawns", big).status());
    }

    @Test
    void aSpawnClosedWhileItsTunnelsAreOpenEndsThem() throws Exception {
        start();
        JsonNode spawn = open("studio");
        List<SpawnClient> tunnels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            SpawnClient client = tunnel(spawn);
            assertEchoes(client, "ping " + i);
            tunnels.add(client);
        }
        assertEquals(
                3,
                ControlClient.call(control, "GET", "/spawns/studio")
                        .json()
                        .get("openConnections")
                        .asInt());

        assertEquals(
                204, ControlClient.call(control, "DELETE", "/spawns/studio").status());

        for (SpawnClient client : tunnels) {
            assertEquals(0, client.readToEnd().length, "the tunnel ended");
        }
        assertFalse(Files.exists(Path.of(spawn.get("socket").asText()).getParent()));
    }

    @Test
    void aThousandSpawnsOpenAndCloseWithoutLeakingFilesThreadsOrDirectories() throws Exception {
        start();
        for (int i = 0; i < 20; i++) {
            openAndClose("warm-" + i);
        }
        long fds = openFiles();
        int threads = Thread.activeCount();

        for (int i = 0; i < 1000; i++) {
            openAndClose("spawn-" + i);
        }

        // Other test classes share this JVM and may end threads or sockets meanwhile; one leaked per spawn is 1,000.
        long fdsAfter = openFiles();
        int threadsAfter = Thread.activeCount();
        assertTrue(fdsAfter <= fds + 5, "open file descriptors: " + fds + " before, " + fdsAfter + " after");
        assertTrue(threadsAfter <= threads + 2, "threads: " + threads + " before, " + threadsAfter + " after");
        try (Stream<Path> left = Files.list(spawns)) {
            assertEquals(0, left.count(), "spawn directories");
        }
    }

    private void openAndClose(String id) throws IOException {
        JsonNode spawn = open(id);
        try (SpawnClient client = forward(spawn)) {
            assertEchoes(client, id);
        }
        assertEquals(204, ControlClient.call(control, "DELETE", "/spawns/" + id).status());
    }

    private static long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void metricsCountTheTrafficSent() throws Exception {
        start();
        JsonNode spawn = open("studio");
        Path socket = Path.of(spawn.get("socket").asText());
        for (int i = 0; i < 5; i++) {
            try (SpawnClient client = forward(spawn)) {
                assertEchoes(client, "0123456789");
            }
        }
        for (int i = 0; i < 2; i++) {
            try (SpawnClient client = proxy(spawn, "CONNECT elsewhere.example:443 HTTP/1.1\r\n\r\n")) {
                assertTrue(client.readHead().startsWith("HTTP/1.1 403"));
            }
        }
        SpawnClient open = tunnel(spawn);
        assertEchoes(open, "x");
        for (int i = 0; i < 7; i++) {
            decisions.poll(5, TimeUnit.SECONDS);
        }

        ControlClient.Answer answer = ControlClient.call(control, "GET", "/metrics");

        assertEquals(200, answer.status());
        assertTrue(answer.headers().get("content-type").startsWith("text/plain; version=0.0.4"));
        String text = answer.body();
        assertEquals(5, value(text, "portcullis_connections_total{code=\"none\",kind=\"forward\",verdict=\"allow\"}"));
        assertEquals(
                2, value(text, "portcullis_connections_total{code=\"not-listed\",kind=\"proxy\",verdict=\"deny\"}"));
        // Counted as they move: the open tunnel's byte each way too (issue 25 #7).
        assertEquals(51, value(text, "portcullis_bytes_total{direction=\"up\"}"));
        assertEquals(51, value(text, "portcullis_bytes_total{direction=\"down\"}"));
        assertEquals(8, value(text, "portcullis_connections_accepted_total"));
        assertEquals(1, value(text, "portcullis_open_connections{spawn=\"studio\"}"));
        assertEquals(1, value(text, "portcullis_spawns_open"));
        assertEquals(1, value(text, "portcullis_config_generation"));
        assertEquals(8, value(text, "portcullis_decision_seconds_count"), "every verdict, the open tunnel's too");
        assertEquals(6, value(text, "portcullis_connect_seconds_count"));
    }

    private static double value(String text, String series) {
        return text.lines()
                .filter(line -> line.startsWith(series + " "))
                .findFirst()
                .map(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .orElseThrow(() -> new AssertionError(series + " not in\n" + text));
    }

    /**
     * Issue 25 #7: GET /spawns showed a spawn's open connections but nothing of what they carried
     * until they closed; a tunnel that had moved 100 kB showed 0. Bytes are counted as they move.
     */
    @Test
    void aTunnelThatMovedOneHundredKilobytesShowsThemInTheListingBeforeItCloses() throws Exception {
        start();
        JsonNode spawn = open("studio");
        SpawnClient open = tunnel(spawn);
        assertEchoes(open, "x".repeat(100 * 1024));

        JsonNode shown = ControlClient.call(control, "GET", "/spawns").json().get(0);

        assertEquals(100 * 1024, shown.get("bytesUp").asLong(), shown.toString());
        assertEquals(100 * 1024, shown.get("bytesDown").asLong(), shown.toString());
        assertEquals(1, shown.get("openConnections").asInt(), shown.toString());
        assertEquals(1, shown.get("connections").asLong(), shown.toString());
        assertEquals(1, shown.get("revision").asLong(), shown.toString());
        assertEquals(null, decisions.poll(), "the tunnel is still open");
    }

    /** {@code policy(id)} with {@code from} replaced by {@code to}. */
    private String changed(String id, String from, String to) {
        String policy = policy(id);
        assertTrue(policy.contains(from), policy);
        return policy.replace(from, to);
    }

    /** Issue 25 #11: PUT /spawns/{id} puts a new policy in effect; what the sockets are may not change. */
    @Test
    void aPutChangesThePolicyOfAnOpenSpawnForItsNewConnections() throws Exception {
        start();
        JsonNode spawn = open("studio");
        SpawnClient survivor = tunnel(spawn);
        assertEchoes(survivor, "before");

        ControlClient.Answer put = ControlClient.call(
                control,
                "PUT",
                "/spawns/studio",
                changed("studio", "\"hosts\": [", "\"network\": \"internet\", \"hosts\": ["));

        assertEquals(200, put.status(), put.body());
        assertEquals(2, put.json().get("revision").asLong(), put.body());
        assertEquals(spawn.get("socket").asText(), put.json().get("socket").asText());
        assertEquals(
                SpawnPolicy.Network.INTERNET,
                daemon.relay().spawn("studio").orElseThrow().policy().network());
        assertEchoes(survivor, "after");
        try (SpawnClient client = forward(spawn)) {
            assertEchoes(client, "new");
        }
        assertEquals(2, decisions.poll(5, TimeUnit.SECONDS).revision(), "the new connection's revision");
        assertEquals(
                2,
                ControlClient.call(control, "GET", "/spawns/studio")
                        .json()
                        .get("revision")
                        .asLong());
    }

    @Test
    void aPutThatChangesTheSocketsIsRefusedWholeNamingEachField() throws Exception {
        start();
        JsonNode spawn = open("studio");
        int proxy = ports(spawn).proxy();
        int forward = ports(spawn).forward();

        ControlClient.Answer put = ControlClient.call(
                control,
                "PUT",
                "/spawns/studio",
                changed("studio", "\"proxyPort\": " + proxy, "\"proxyPort\": " + (proxy + 1))
                        .replace("127.0.0.1:" + forward, "127.0.0.1:" + (forward + 1)));

        assertEquals(400, put.status(), put.body());
        JsonNode errors = put.json().get("errors");
        assertEquals(2, errors.size(), put.body());
        assertTrue(errors.get(0).asText().startsWith("proxyPort: " + (proxy + 1) + " (expected: " + proxy), put.body());
        assertTrue(
                errors.get(1).asText().startsWith("hosts: loopback entries on ports [" + (forward + 1) + "]"),
                put.body());
        assertEquals(
                1,
                ControlClient.call(control, "GET", "/spawns/studio")
                        .json()
                        .get("revision")
                        .asLong());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '~',
            value = {
                "another id in the body | {\"id\": \"kiosk\"} | id: \"kiosk\" (expected: \"studio\", the spawn's id)",
                "not a policy           | {\"id\": \"studio\", \"network\": \"some\"} | network",
                "not JSON               | not json | (json): ",
            })
    void aPutOfABadPolicyIsRefusedWithEveryProblem(String what, String body, String problem) throws Exception {
        start();
        open("studio");

        ControlClient.Answer put = ControlClient.call(control, "PUT", "/spawns/studio", body);

        assertEquals(400, put.status(), what + ": " + put.body());
        assertTrue(put.json().get("errors").get(0).asText().startsWith(problem), what + ": " + put.body());
        assertEquals(1, daemon.relay().spawn("studio").orElseThrow().revision());
    }

    @Test
    void aReloadUnderLoadAppliesToNewConnectionsAndKeepsOpenTunnels() throws Exception {
        start("{}", null);
        JsonNode spawn = open("studio");
        Path socket = Path.of(spawn.get("socket").asText());
        SpawnClient survivor = tunnel(spawn);
        assertEchoes(survivor, "before");
        Files.writeString(dir.resolve("host.json"), "{\"denyList\": [\"127.0.0.0/8\"]}");

        long generation = -1;
        int sent = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (; sent < 200 && System.nanoTime() < deadline; sent++) {
            if (sent == 50) {
                ControlClient.Answer reload = ControlClient.call(control, "POST", "/reload");
                assertEquals(200, reload.status(), reload.body());
                generation = reload.json().get("generation").asLong();
            }
            try (SpawnClient client = forward(spawn)) {
                client.write("x");
                client.shutdownOutput();
                client.readToEnd();
            } catch (IOException refusedBeforeTheWrite) {
                // A refused forward is closed at once; its decision line says why.
            }
        }

        assertEquals(2, generation);
        assertEquals(200, sent);
        for (int i = 0; i < sent; i++) {
            Decision decision = decisions.poll(5, TimeUnit.SECONDS);
            long expected = i < 50 ? 1 : 2;
            assertEquals(expected, decision.generation(), "connection " + i);
            assertEquals(i < 50 ? null : "deny-listed", Line.of(decision).code(), "connection " + i);
        }
        assertEchoes(survivor, "after");
        String metrics = ControlClient.call(control, "GET", "/metrics").body();
        assertEquals(2, value(metrics, "portcullis_config_generation"));
        assertEquals(1, value(metrics, "portcullis_config_reloads_total{result=\"ok\"}"));
        assertEquals(
                51, value(metrics, "portcullis_owner_check_seconds_count"), "the survivor and the 50 allowed before");
        assertEquals(
                150,
                value(metrics, "portcullis_connections_total{code=\"deny-listed\",kind=\"forward\",verdict=\"deny\"}"));
    }

    @Test
    void aBadHostConfigurationKeepsTheOldOneAndSaysWhy() throws Exception {
        start("{}", null);
        Files.writeString(
                dir.resolve("host.json"), "{\"denyList\": [\"10.0.0.0/33\"], \"limits\": {\"headerBytes\": -1}}");

        ControlClient.Answer reload = ControlClient.call(control, "POST", "/reload");

        assertEquals(400, reload.status());
        assertEquals(2, reload.json().get("errors").size(), reload.body());
        assertEquals(1, reload.json().get("generation").asLong());
        assertEquals(1, daemon.relay().generation());
        assertTrue(ControlClient.call(control, "GET", "/metrics")
                .body()
                .contains("portcullis_config_reloads_total{result=\"error\"} 1.0"));
    }

    @Test
    void aSpawnAtItsLimitDoesNotStarveAnother() throws Exception {
        start("{\"limits\": {\"spawnConnections\": 4, \"relayConnections\": 8}}", this::forwardsOnly);
        JsonNode busy = open("busy");
        JsonNode quiet = open("quiet");
        for (int i = 0; i < 4; i++) {
            assertEchoes(tunnel(busy), "busy " + i);
        }
        try (SpawnClient over = forward(busy)) {
            assertEquals(0, over.readToEnd().length, "the busy spawn's fifth connection is closed");
        }

        long start = System.nanoTime();
        assertEchoes(tunnel(quiet), "quiet");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertTrue(millis < 1000, "the quiet spawn connected in " + millis + " ms");
        assertEquals(DenyCode.LIMIT_SPAWN.code(), Line.of(firstDenied()).code());
    }

    private Decision firstDenied() throws InterruptedException {
        for (Decision decision; (decision = decisions.poll(5, TimeUnit.SECONDS)) != null; ) {
            if (Line.of(decision).code() != null) {
                return decision;
            }
        }
        throw new AssertionError("no refusal");
    }

    @Test
    void reloadingFromTheApiChangesTheLimitsOfNewConnections() throws Exception {
        start("{}", this::forwardsOnly);
        JsonNode spawn = open("studio");
        SpawnClient first = tunnel(spawn);
        assertEchoes(first, "one");
        Files.writeString(dir.resolve("host.json"), "{\"limits\": {\"spawnConnections\": 1}}");

        assertEquals(200, ControlClient.call(control, "POST", "/reload").status());

        try (SpawnClient second = forward(spawn)) {
            assertEquals(0, second.readToEnd().length);
        }
        assertEchoes(first, "still");
        assertEquals(DenyCode.LIMIT_SPAWN.code(), Line.of(firstDenied()).code());
    }
}
