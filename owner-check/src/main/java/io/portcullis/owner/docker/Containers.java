package io.portcullis.owner.docker;

import com.github.dockerjava.api.model.Container;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** Maps the Engine API's container list entries to {@link ContainerInfo}. */
final class Containers {
    private Containers() {}

    static ContainerInfo info(Container c) {
        String[] names = c.getNames();
        String name = names == null || names.length == 0 ? "" : names[0].replaceFirst("^/", "");
        Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
        return new ContainerInfo(c.getId(), name, labels, ports(c), addresses(c));
    }

    private static List<ContainerInfo.Published> ports(Container c) {
        if (c.getPorts() == null) {
            return List.of();
        }
        return Arrays.stream(c.getPorts())
                .filter(p -> p.getPublicPort() != null && p.getPublicPort() > 0)
                .map(p -> new ContainerInfo.Published(
                        literal(p.getIp()), p.getPublicPort(), p.getType() == null ? "tcp" : p.getType()))
                .toList();
    }

    private static Set<InetAddress> addresses(Container c) {
        if (c.getNetworkSettings() == null || c.getNetworkSettings().getNetworks() == null) {
            return Set.of();
        }
        return c.getNetworkSettings().getNetworks().values().stream()
                .flatMap(n -> Stream.of(n.getIpAddress(), n.getGlobalIPv6Address()))
                .flatMap(text -> literal(text).stream())
                .collect(Collectors.toSet());
    }

    /** The address Docker names; empty for none (Docker's null or empty text). */
    private static Optional<InetAddress> literal(@Nullable String text) {
        return text == null || text.isEmpty() ? Optional.empty() : Optional.of(InetAddress.ofLiteral(text));
    }
}
