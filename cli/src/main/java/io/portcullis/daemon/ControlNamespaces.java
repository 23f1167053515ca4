package io.portcullis.daemon;

import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The network namespaces whose processes the control socket serves (SPEC R5): the daemon's own,
 * and each one the operator lists ({@code --control-netns}). A listed namespace is read once, at
 * start, and its file held open until {@link #close()}: an open namespace lives on, so its inode
 * number never passes to a namespace made later (say, inside a spawn) while the daemon runs.
 */
public final class ControlNamespaces implements AutoCloseable {
    private final NetworkNamespace own;
    /** Each listed namespace and the descriptor that holds it. */
    private final Map<NetworkNamespace, Integer> listed;

    private final AtomicBoolean closed = new AtomicBoolean();

    private ControlNamespaces(NetworkNamespace own, Map<NetworkNamespace, Integer> listed) {
        this.own = own;
        this.listed = Map.copyOf(listed);
    }

    /** Only the daemon's own namespace. */
    public static ControlNamespaces own() throws IOException {
        return new ControlNamespaces(NetworkNamespace.own(), Map.of());
    }

    /**
     * The daemon's own namespace and each of {@code paths}; adds a problem for each path that names
     * no network namespace, and is then empty (with nothing left open).
     */
    public static Optional<ControlNamespaces> open(List<Path> paths, List<String> problems) throws IOException {
        Objects.requireNonNull(paths, "paths");
        Map<NetworkNamespace, Integer> listed = new LinkedHashMap<>();
        int before = problems.size();
        for (Path path : paths) {
            int fd;
            try {
                fd = Posix.openNetworkNamespace(path.toString());
            } catch (Posix.Failure e) {
                problems.add("--control-netns: " + path + " (expected: a network namespace file, such as"
                        + " /run/netns/NAME or /proc/PID/ns/net; " + e.getMessage() + ")");
                continue;
            }
            NetworkNamespace namespace;
            try {
                namespace = NetworkNamespace.ofDescriptor(fd);
            } catch (IOException e) {
                Posix.closeQuietly(fd);
                throw e;
            }
            Integer held = listed.putIfAbsent(namespace, fd);
            if (held != null) {
                Posix.closeQuietly(fd);
            }
        }
        if (problems.size() > before) {
            listed.values().forEach(Posix::closeQuietly);
            return Optional.empty();
        }
        return Optional.of(new ControlNamespaces(NetworkNamespace.own(), listed));
    }

    /** Whether the control socket serves a process in {@code namespace}. */
    boolean contains(NetworkNamespace namespace) {
        return own.equals(namespace) || listed.containsKey(namespace);
    }

    /** Whether {@code namespace} is the daemon's own. */
    boolean isOwn(NetworkNamespace namespace) {
        return own.equals(namespace);
    }

    /** The daemon's own, then each listed one: for the log. */
    @Override
    public String toString() {
        return own
                + (listed.isEmpty()
                        ? ""
                        : " "
                                + String.join(
                                        " ",
                                        listed.keySet().stream()
                                                .map(String::valueOf)
                                                .toList()));
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            listed.values().forEach(Posix::closeQuietly);
        }
    }
}
