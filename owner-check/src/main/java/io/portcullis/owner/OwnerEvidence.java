package io.portcullis.owner;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the owner check saw: the listeners that could answer, the processes holding them, and the
 * container that publishes the port (null when none does: JSON's null). Plain values, so the CLI can
 * print them as JSON (SPEC R36).
 */
public record OwnerEvidence(
        List<Listener> listeners,
        List<Process> processes,
        @Nullable Container container) {

    public static final OwnerEvidence NONE = new OwnerEvidence(List.of(), List.of(), null);

    public OwnerEvidence {
        listeners = List.copyOf(listeners);
        processes = List.copyOf(processes);
    }

    /**
     * A LISTEN socket: family, bound address, port, uid, inode, V6ONLY (null when the {@code /proc}
     * fallback could not tell), bound device (empty: none).
     */
    public record Listener(
            String family,
            String address,
            int port,
            int uid,
            long inode,
            @Nullable Boolean v6Only,
            String device) {}

    /** A process holding a listener's inode; {@code cwd} and {@code exe} null when they could not be read. */
    public record Process(
            long pid,
            int uid,
            List<String> argv,
            @Nullable String cwd,
            @Nullable String exe,
            long inode) {
        public Process {
            argv = List.copyOf(argv);
        }
    }

    /** A running container that publishes the port or owns the address. */
    public record Container(String id, String name, Map<String, String> labels) {
        public Container {
            labels = Map.copyOf(labels);
        }
    }
}
