package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.testing.DockerWorld;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Root sockets (R32) against real labelled containers published on 127.0.0.1 through Docker's proxy. */
class DockerOwnerTest {
    private static final Path BUNDLES = Path.of("/srv/portcullis-test/bundles");
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @RegisterExtension
    static final DockerWorld DOCKER = new DockerWorld();

    private static Map<String, DockerWorld.Container> containers;
    private static ManagedOwnerCheck check;

    @BeforeAll
    static void start() {
        containers = Map.of(
                "own", DOCKER.start(Map.of(ContainerInfo.PROJECT, "studio"), true),
                "other-addon", DOCKER.start(Map.of(ContainerInfo.PROJECT, "notes"), true),
                "unknown", DOCKER.start(Map.of(ContainerInfo.PROJECT, "mystery"), true),
                "unlabelled", DOCKER.start(Map.of(), true),
                "bundle-installed",
                        DOCKER.start(
                                Map.of(
                                        ContainerInfo.PROJECT,
                                        "bundle-x",
                                        ContainerInfo.WORKING_DIR,
                                        BUNDLES.resolve("studio").toString()),
                                true),
                "bundle-not-installed",
                        DOCKER.start(
                                Map.of(
                                        ContainerInfo.PROJECT,
                                        "studio",
                                        ContainerInfo.WORKING_DIR,
                                        BUNDLES.resolve("ghost").toString()),
                                true),
                "exception", DOCKER.start(Map.of(ContainerInfo.PROJECT, "shared-db"), true));
        OwnerConfig config = new OwnerConfig(
                OwnerCheckTest.GATEWAY_UID,
                0,
                List.of(),
                List.of(),
                Set.of("studio", "notes"),
                List.of(BUNDLES),
                Map.of("studio", Set.of("shared-db")),
                DockerWorld.ENDPOINT,
                Duration.ZERO);
        check = OwnerChecks.system(config, new WallProcesses());
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static OwnerAnswer ask(Source source, InetAddress address, int port) {
        return check.check(new OwnerQuery("studio", source, address, port)).join();
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "own,                  OWNER,   allow",
        "own,                  DEFAULT, allow",
        "other-addon,          OWNER,   owner-other-addon",
        "unknown,              OWNER,   owner-unknown-project",
        "unlabelled,           OWNER,   owner-unlabelled",
        "bundle-installed,     OWNER,   allow",
        "bundle-installed,     DEFAULT, allow",
        "bundle-not-installed, OWNER,   owner-unknown-project",
        "exception,            OWNER,   allow",
        "exception,            DEFAULT, owner-unknown-project",
    })
    void aPublishedPort(String name, Source source, String expected) {
        DockerWorld.Container c = containers.get(name);
        OwnerAnswer answer = ask(source, LOOPBACK, c.port());
        assertEquals(expected, answer.code().map(OwnerCode::code).orElse("allow"), answer::toString);
        assertEquals(c.id(), answer.evidence().container().id());
        assertEquals(0, answer.evidence().listeners().getFirst().uid());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "own,         allow",
        "other-addon, owner-other-addon",
        "unlabelled,  owner-unlabelled",
    })
    void aContainersOwnAddress(String name, String expected) {
        DockerWorld.Container c = containers.get(name);
        // As the relay asks about an address in a Docker network that is not this host's own (R32).
        OwnerAnswer answer = check.check(new OwnerQuery("studio", Source.OWNER, c.address(), 80, false))
                .join();
        assertEquals(expected, answer.code().map(OwnerCode::code).orElse("allow"), answer::toString);
        assertEquals(c.id(), answer.evidence().container().id());
    }

    /**
     * Issue 9, item 3, against a real container: its address is in the Docker networks the relay
     * asks about, and a check whose Docker is down still knows that (from the bridge's interface)
     * and refuses it {@code owner-docker-down}.
     */
    @Test
    void aContainersAddressIsDockerSpaceAndRefusedWithDockerDown() throws Exception {
        DockerWorld.Container c = containers.get("own");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!check.dockerNetworks().contains(c.address()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(true, check.dockerNetworks().contains(c.address()), check.dockerNetworks()::toString);
        OwnerConfig dead = new OwnerConfig(
                OwnerCheckTest.GATEWAY_UID,
                0,
                List.of(),
                List.of(),
                Set.of("studio"),
                List.of(),
                Map.of(),
                "unix:///nonexistent/docker.sock",
                Duration.ZERO);
        try (ManagedOwnerCheck down = OwnerChecks.system(dead, new WallProcesses())) {
            assertEquals(true, down.dockerNetworks().contains(c.address()), down.dockerNetworks()::toString);
            OwnerAnswer answer = down.check(new OwnerQuery("studio", Source.OWNER, c.address(), 80, false))
                    .join();
            assertEquals(Optional.of(OwnerCode.DOCKER_DOWN), answer.code(), answer::toString);
        }
    }

    @Test
    void anOwnAddressThatNoContainerHasAndNothingListensOn() throws IOException {
        InetAddress own = OwnerCheckTest.ownNonLoopbackAddress();
        assertEquals(
                Optional.of(OwnerCode.NONE),
                ask(Source.OWNER, own, OwnerCheckTest.freePort()).code());
    }

    @Test
    void aRootListenerThatNoContainerPublishes() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            assertEquals(
                    Optional.of(OwnerCode.ROOT),
                    ask(Source.OWNER, LOOPBACK, s.getLocalPort()).code());
        }
    }

    @Test
    void aContainerStartedAfterTheViewWasBuiltIsSeen() {
        ask(Source.OWNER, LOOPBACK, containers.get("own").port());
        DockerWorld.Container late = DOCKER.start(Map.of(ContainerInfo.PROJECT, "studio"), true);
        try {
            assertEquals(
                    Optional.empty(), ask(Source.OWNER, LOOPBACK, late.port()).code());
        } finally {
            DOCKER.stop(late);
        }
    }
}
