package io.portcullis.it.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.testing.DockerWorld;
import io.portcullis.owner.testing.PythonListener;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The owner check inside the relay (SPEC R11, R12, R30-R36): a relay in the test JVM with its
 * default, real owner check, one spawn whose loopback entries forward to real listeners (python
 * under the gateway's uid, root listeners, Docker's proxy for labelled containers), and the real
 * entry in a spawn's namespace running socat and curl. Loopback and Docker only, in the host's
 * network namespace.
 */
class OwnerEndToEndTest {
    static final int GATEWAY_UID = 4100;
    static final int GATEWAY_PORT = 18789;
    static final String SIGNATURE = "--portcullis-test-gateway";
    static final String ADDON = "studio";

    @RegisterExtension
    static final DockerWorld DOCKER = new DockerWorld();

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Each case: its forward port, the entry's source, and what holds the port. */
    private static final Map<String, Integer> PORTS = new LinkedHashMap<>();

    private static final Map<String, String> SOURCES = new LinkedHashMap<>();
    private static final Map<String, Long> PIDS = new LinkedHashMap<>();
    private static final List<PythonListener> LISTENERS = new ArrayList<>();
    private static final Map<String, DockerWorld.Container> CONTAINERS = new LinkedHashMap<>();
    private static Path dir;
    private static Path hostFile;
    /** The decision line of each case's connection, and what the spawn's client saw. */
    private static Map<String, Decision> decisions;

    private static Map<String, String> clientSaw;

    @BeforeAll
    static void connectOncePerCase() throws Exception {
        dir = Files.createTempDirectory("portcullis-owner-e2e-");
        Path root = PythonListener.openFolder("portcullis-gateway-root-");
        Path elsewhere = PythonListener.openFolder("portcullis-addon-");
        hostFile = dir.resolve("host.json");
        Files.writeString(hostFile, hostJson(root, DockerWorld.ENDPOINT));
        try {
            listener(
                    "own-service",
                    "owner",
                    PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(elsewhere));
            listener(
                    "own-service-as-default",
                    "default",
                    PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(elsewhere));
            listener(
                    "gateway-signature",
                    "owner",
                    PythonListener.v4("127.0.0.1")
                            .uid(GATEWAY_UID)
                            .cwd(elsewhere)
                            .arg(SIGNATURE));
            listener(
                    "checkout",
                    "owner",
                    PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(root));
            listener("root-unpublished", "owner", PythonListener.v4("127.0.0.1"));
            PORTS.put("nothing-listening", freePort());
            SOURCES.put("nothing-listening", "owner");
            container("own-container", "owner", ADDON);
            container("own-container-as-default", "default", ADDON);
            container("other-addon-container", "owner", "notes");
            try (Spawn spawn = Spawn.open(dir, hostFile, spawnJson())) {
                clientSaw = ForwardProbe.connectEach(spawn, PORTS, CONTAINERS.keySet());
                decisions = ForwardProbe.decisionsByForward(spawn, PORTS);
            }
        } catch (Exception | Error e) {
            stopAll();
            throw e;
        }
    }

    @AfterAll
    static void stopAll() throws IOException {
        LISTENERS.forEach(PythonListener::close);
        CONTAINERS.values().forEach(DOCKER::stop);
        CONTAINERS.clear();
        LISTENERS.clear();
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    static String hostJson(Path root, String docker) {
        return """
                {"owner": {"gatewayUid": %d, "gatewayPort": %d, "roots": ["%s"],
                           "signatures": [{"name": "test-gateway", "argv": "%s"}],
                           "addons": ["%s", "notes"], "docker": "%s", "cacheMillis": 0}}""".formatted(GATEWAY_UID, GATEWAY_PORT, root, SIGNATURE, ADDON, docker);
    }

    private static void listener(String name, String source, PythonListener.Builder builder) {
        PythonListener l = builder.start();
        LISTENERS.add(l);
        PORTS.put(name, l.port());
        SOURCES.put(name, source);
        PIDS.put(name, l.pid());
    }

    private static void container(String name, String source, String project) {
        DockerWorld.Container c = DOCKER.start(Map.of(ContainerInfo.PROJECT, project), true);
        CONTAINERS.put(name, c);
        PORTS.put(name, c.port());
        SOURCES.put(name, source);
    }

    private static String spawnJson() {
        List<String> hosts = new ArrayList<>();
        PORTS.forEach(
                (name, port) -> hosts.add("{\"target\": \"127.0.0.1:%d\", \"scheme\": \"tcp\", \"source\": \"%s\"}"
                        .formatted(port, SOURCES.get(name))));
        return "{\"id\": \"" + ADDON + "\", \"network\": \"listed\", \"hosts\": [" + String.join(", ", hosts) + "]}";
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "own-service,              allow",
        "own-service-as-default,   owner-default-user",
        "gateway-signature,        owner-gateway",
        "checkout,                 owner-checkout",
        "nothing-listening,        owner-none",
        "root-unpublished,         owner-root",
        "own-container,            allow",
        "own-container-as-default, allow",
        "other-addon-container,    owner-other-addon",
    })
    void aForwardGetsTheOwnerChecksAnswer(String name, String expected) {
        Decision decision = decisions.get(name);
        assertNotNull(decision, "no decision line for " + name + ": " + decisions.keySet());
        assertEquals("forward", decision.kind());
        assertEquals(
                expected,
                Line.of(decision).code() == null
                        ? Line.of(decision).verdict()
                        : Line.of(decision).code(),
                decision.toString());
        if (expected.equals("allow")) {
            assertEquals("127.0.0.1:" + PORTS.get(name), Line.of(decision).dialed());
        } else {
            assertEquals("deny", Line.of(decision).verdict());
            assertNull(Line.of(decision).dialed(), decision.toString());
        }
    }

    @ParameterizedTest(name = "{0}: the client saw {1}")
    @CsvSource({
        "own-container,            404",
        "own-container-as-default, 404",
        "other-addon-container,    000",
    })
    void theClientSeesTheTunnelOrAClosedConnection(String name, String expected) {
        assertEquals(expected, clientSaw.get(name), clientSaw.toString());
    }

    @Test
    void theDecisionLineCarriesTheOwnerEvidence() {
        OwnerEvidence own = Line.of(decisions.get("own-service")).owner();
        assertEquals(GATEWAY_UID, own.listeners().getFirst().uid(), own.toString());
        assertEquals(PIDS.get("own-service"), own.processes().getFirst().pid(), own.toString());

        OwnerEvidence gateway = Line.of(decisions.get("gateway-signature")).owner();
        assertTrue(gateway.processes().getFirst().argv().contains(SIGNATURE), gateway.toString());

        OwnerEvidence other = Line.of(decisions.get("other-addon-container")).owner();
        assertEquals(
                CONTAINERS.get("other-addon-container").id(), other.container().id(), other.toString());
        assertEquals("notes", other.container().labels().get(ContainerInfo.PROJECT));

        assertEquals(
                List.of(), Line.of(decisions.get("nothing-listening")).owner().listeners());
    }

    /**
     * Docker down: a root listener is still refused, as root's (issue 25: it read "Docker is
     * unreachable", which matters only for a port Docker's proxy holds).
     */
    @Test
    void dockerDownRefusesARootListenerAsRoots() throws Exception {
        Path deadHost = dir.resolve("host-docker-down.json");
        Files.writeString(deadHost, hostJson(dir, "unix://" + dir.resolve("no-docker.sock")));
        try (PythonListener root = PythonListener.v4("127.0.0.1").start();
                Spawn spawn = Spawn.open(dir, deadHost, """
                        {"id": "%s", "network": "listed", "hosts": [{"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(ADDON, root.port()))) {
            Map<String, Integer> ports = Map.of("root", root.port());
            ForwardProbe.connectEach(spawn, ports, Set.of());
            Decision decision = ForwardProbe.decisionsByForward(spawn, ports).get("root");
            assertEquals("owner-root", Line.of(decision).code(), decision.toString());
        }
    }

    /** {@code ./portcullis owner} for the same listeners and containers, as an operator runs it. */
    @ParameterizedTest(name = "portcullis owner {0} {1} -> {2}")
    @CsvSource({
        "own-service,           '',        allow,              0",
        "own-service,           --default, owner-default-user, 1",
        "other-addon-container, '',        owner-other-addon,  1",
        "nothing-listening,     '',        owner-none,         1",
    })
    void theOwnerCommandExplains(String name, String flag, String expected, int exit) throws Exception {
        List<String> args = new ArrayList<>(List.of("owner", "--spawn", ADDON, "--host", hostFile.toString()));
        if (!flag.isEmpty()) {
            args.add(flag);
        }
        args.add("127.0.0.1:" + PORTS.get(name));
        Run run = Portcullis.run(args, "");
        assertEquals(exit, run.exit(), run.toString());
        JsonNode json = JSON.readTree(run.out());
        assertEquals(
                expected,
                json.get("code").isNull()
                        ? json.get("verdict").asText()
                        : json.get("code").asText(),
                json.toString());
        JsonNode evidence = json.get("evidence");
        switch (name) {
            case "own-service" -> {
                assertEquals(
                        PIDS.get(name).longValue(),
                        evidence.get("processes").get(0).get("pid").asLong(),
                        json.toString());
                assertEquals(
                        GATEWAY_UID, evidence.get("listeners").get(0).get("uid").asInt(), json.toString());
            }
            case "other-addon-container" ->
                assertEquals(
                        CONTAINERS.get(name).id(),
                        evidence.get("container").get("id").asText(),
                        json.toString());
            default -> assertEquals(0, evidence.get("listeners").size(), json.toString());
        }
    }
}
