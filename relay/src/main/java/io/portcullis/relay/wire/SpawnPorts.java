package io.portcullis.relay.wire;

import io.portcullis.entry.wire.Preamble;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The loopback ports a spawn's entry listens on: the proxy port (already moved up past the
 * forwards and the door, {@code SpawnPolicy.effectiveProxyPort()}), each forward, and the door
 * port (0 when the spawn has no door). A preamble must name one of them with its kind (SPEC R4).
 */
public record SpawnPorts(int proxy, Set<Integer> forwards, int door) {

    public SpawnPorts {
        forwards = Set.copyOf(new TreeSet<>(forwards));
        checkPort("proxy", proxy);
        forwards.forEach(port -> checkPort("forwards", port));
        if (door != 0) {
            checkPort("door", door);
        }
        if (forwards.contains(proxy) || forwards.contains(door) || (door != 0 && door == proxy)) {
            throw new IllegalArgumentException("ports: proxy " + proxy + ", forwards " + forwards + ", door " + door
                    + " (expected: all different)");
        }
    }

    /** Whether the preamble's kind and port are this spawn's. */
    public boolean accepts(Preamble preamble) {
        return switch (preamble.kind()) {
            case PROXY -> preamble.port() == proxy;
            case FORWARD -> forwards.contains(preamble.port());
            case DOOR -> door != 0 && preamble.port() == door;
        };
    }

    /** The forwards in ascending order. */
    public List<Integer> sortedForwards() {
        return new TreeSet<>(forwards).stream().toList();
    }

    private static void checkPort(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: 1-65535)");
        }
    }
}
