package io.portcullis.owner.docker;

import io.portcullis.owner.checks.Checks;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A running container as the owner check needs it.
 *
 * @param name without Docker's leading slash
 * @param addresses its own addresses on every Docker network it joined
 */
public record ContainerInfo(
        String id, String name, Map<String, String> labels, List<Published> ports, Set<InetAddress> addresses) {

    public static final String PROJECT = "com.docker.compose.project";
    public static final String WORKING_DIR = "com.docker.compose.project.working_dir";

    public ContainerInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        labels = Map.copyOf(labels);
        ports = List.copyOf(ports);
        addresses = Set.copyOf(addresses);
    }

    /** A port published on the host. {@code hostIp} empty: every address; a wildcard: every address of its family. */
    public record Published(Optional<InetAddress> hostIp, int port, String protocol) {
        public Published {
            Objects.requireNonNull(hostIp, "hostIp");
            Objects.requireNonNull(protocol, "protocol");
            Checks.port("port", port);
        }

        boolean answers(InetAddress target, int targetPort) {
            return port == targetPort
                    && protocol.equals("tcp")
                    && hostIp.map(ip ->
                                    ip.equals(target) || (ip.isAnyLocalAddress() && ip.getClass() == target.getClass()))
                            .orElse(true);
        }
    }

    /** Whether this container publishes {@code port} over TCP on {@code target}. */
    public boolean publishes(InetAddress target, int port) {
        return ports.stream().anyMatch(p -> p.answers(target, port));
    }
}
