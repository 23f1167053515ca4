package io.portcullis.owner.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.testing.DockerWorld;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The Docker view kept current by the events stream alone, and Docker down. */
class DockerApiViewTest {
    private static final Duration NEVER = Duration.ofHours(1);

    @RegisterExtension
    static final DockerWorld DOCKER = new DockerWorld();

    @Test
    void followsContainersThroughTheEventsStream() throws Exception {
        try (DockerApiView view = new DockerApiView(DockerWorld.ENDPOINT, NEVER)) {
            eventually(view::following);
            view.containers(true);
            DockerWorld.Container c = DOCKER.start(Map.of(ContainerInfo.PROJECT, "studio"), true);
            eventually(() -> seen(view, c.id()));
            assertTrue(view.containers(false).stream()
                    .filter(i -> i.id().equals(c.id()))
                    .allMatch(i -> i.publishes(java.net.InetAddress.ofLiteral("127.0.0.1"), c.port())
                            && i.addresses().contains(c.address())
                            && i.labels().get(ContainerInfo.PROJECT).equals("studio")));
            DOCKER.stop(c);
            eventually(() -> !seen(view, c.id()));
        }
    }

    @Test
    void aDeadSocketIsDockerDown(@TempDir Path dir) {
        try (DockerApiView view = new DockerApiView("unix://" + dir.resolve("dead.sock"), NEVER)) {
            assertThrows(DockerDownException.class, () -> view.containers(false));
            assertThrows(DockerDownException.class, () -> view.containers(true));
        }
    }

    /** Issue 25 (#1): a command that asks nothing of Docker (check, a short run) never builds docker-java's client. */
    @Test
    void theClientIsBuiltByTheFirstQuestion(@TempDir Path dir) throws DockerDownException {
        try (DockerApiView view = new DockerApiView("unix://" + dir.resolve("dead.sock"), NEVER)) {
            assertFalse(view.clientBuilt());
            assertThrows(DockerDownException.class, () -> view.containers(false));
            assertTrue(view.clientBuilt());
        }
        try (DockerApiView view = new DockerApiView(DockerWorld.ENDPOINT, NEVER)) {
            assertFalse(view.clientBuilt());
            view.containers(true);
            assertTrue(view.clientBuilt());
        }
    }

    @Test
    void anEndpointOfAnotherSchemeIsRefusedAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> new DockerApiView("http://localhost:2375", NEVER));
    }

    private static boolean seen(DockerApiView view, String id) {
        try {
            return view.containers(false).stream().anyMatch(c -> c.id().equals(id));
        } catch (DockerDownException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 10 s");
            Thread.sleep(20);
        }
    }
}
