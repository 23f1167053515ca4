package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.docker.DockerDownException;
import io.portcullis.owner.docker.DockerView;
import io.portcullis.owner.kernel.TcpListener;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A container's own address (SPEC R32, R34), with the Docker view and the host's listeners fed from
 * fixtures: an address that is not this host's own is judged by its container alone and refused
 * {@code owner-docker-down} while Docker is down; one that is also this host's own is judged by the
 * host's listeners too, never by labels alone.
 */
class ContainerAddressTest {
    private static final int OTHER_UID = 4200;
    private static final InetAddress CONTAINER_IP = InetAddress.ofLiteral("172.17.0.2");
    private static final OwnerConfig CONFIG = new OwnerConfig(
            4100,
            18789,
            List.of(),
            List.of(),
            Set.of("studio", "notes"),
            List.of(),
            Map.of(),
            OwnerConfig.DEFAULT_DOCKER_ENDPOINT,
            Duration.ZERO);

    private static DockerView docker(String project) {
        if (project.equals("down")) {
            return fresh -> {
                throw new DockerDownException("docker: down in this test", null);
            };
        }
        Map<String, String> labels = switch (project) {
            case "none", "unlabelled" -> Map.of();
            default -> Map.of(ContainerInfo.PROJECT, project);
        };
        List<ContainerInfo> containers = project.equals("none")
                ? List.of()
                : List.of(new ContainerInfo("c1", "web", labels, List.of(), Set.of(CONTAINER_IP)));
        return fresh -> containers;
    }

    /** Another uid's wildcard socket on the host, or nothing. */
    private static List<TcpListener> host(String listener, int port) {
        return listener.equals("other-uid")
                ? List.of(new TcpListener(
                        TcpListener.Family.INET,
                        InetAddress.ofLiteral("0.0.0.0"),
                        false,
                        port,
                        OTHER_UID,
                        7,
                        TcpListener.V6Only.OFF,
                        0))
                : List.of();
    }

    @ParameterizedTest(name = "host own {0}, container {1}, host listener {2} -> {3}")
    @CsvSource({
        // Issue 9, item 3: a container address, never the host's, with Docker down.
        "false, down,       other-uid, owner-docker-down",
        "false, down,       none,      owner-docker-down",
        "false, studio,     other-uid, allow",
        "false, notes,      none,      owner-other-addon",
        "false, mystery,    none,      owner-unknown-project",
        "false, unlabelled, none,      owner-unlabelled",
        // In a Docker network, but no container has it: not a container's, not the host's.
        "false, none,       other-uid, allow",
        // Also this host's own: the host's listeners answer it, so labels alone never allow.
        "true,  studio,     other-uid, owner-other-user",
        "true,  studio,     none,      owner-none",
        "true,  notes,      none,      owner-other-addon",
        "true,  down,       other-uid, owner-other-user",
        "true,  down,       none,      owner-docker-down",
    })
    void aContainersAddress(boolean hostOwn, String container, String listener, String expected) {
        Sources sources = new Sources(port -> host(listener, port), (inodes, uid) -> Map.of(), docker(container), 1);
        OwnerJudge judge = new OwnerJudge(CONFIG, new WallProcesses(), sources);
        OwnerAnswer answer = judge.answer(new OwnerQuery("studio", Source.OWNER, CONTAINER_IP, 80, hostOwn));
        assertEquals(expected, answer.code().map(OwnerCode::code).orElse("allow"), answer::toString);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"OWNER, true", "DEFAULT, true"})
    void theOwnProjectsContainerAnswersEitherSource(Source source, boolean allowed) {
        Sources sources = new Sources(port -> List.of(), (inodes, uid) -> Map.of(), docker("studio"), 1);
        OwnerAnswer answer = new OwnerJudge(CONFIG, new WallProcesses(), sources)
                .answer(new OwnerQuery("studio", source, CONTAINER_IP, 80, false));
        assertEquals(allowed, answer.allowed(), answer::toString);
        assertEquals("c1", answer.evidence().container().id());
    }
}
