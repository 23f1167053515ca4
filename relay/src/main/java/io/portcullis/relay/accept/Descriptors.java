package io.portcullis.relay.accept;

import io.portcullis.relay.generation.Retirement;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.wire.Posix;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's descriptor limit (SPEC R16). At start the soft limit is raised to the hard limit.
 * Each tunnel holds two descriptors (the client's and the dialed one), and a reserve stays for
 * everything else the relay needs to go on working: spawn sockets and hand-overs, log files, and
 * what the configuration generations hold: the one in use and the replaced ones that wait for
 * their decisions (at most {@link Retirement#MAX_WAITING}), each with its DNS queries and its owner
 * check's Docker connections when a reload changed them. Beside it, the operator's listeners (the
 * daemon's control socket and the metrics listener) each hold at most {@link
 * #LISTENER_CONNECTIONS} connections, counted apart. The relay's connection budget is therefore
 * never more than {@link #connections()}, whatever the configuration says, so no spawn and no run
 * of reloads can take the relay's last descriptors, nor a flood of an operator's listener the
 * spawns'.
 *
 * @param limit the soft descriptor limit in force
 */
public record Descriptors(long limit) {
    /** Descriptors one generation may hold of its own: a resolver's queries under way, Docker's connections. */
    static final int PER_GENERATION = 16;

    /** Descriptors kept for everything but tunnels: the generations' part and the rest. */
    static final int RESERVE = 432 + (1 + Retirement.MAX_WAITING) * PER_GENERATION;

    /** The most connections the control socket, and the metrics listener, each hold open (their caps). */
    public static final int LISTENER_CONNECTIONS = 32;

    /** Descriptors kept for the operator's two listeners' connections. */
    static final int LISTENERS = 2 * LISTENER_CONNECTIONS;

    private static final Logger log = LoggerFactory.getLogger(Descriptors.class);

    /** The limit raised to the hard limit; when the limit cannot be read, as the JVM found it. */
    public static Descriptors raised() {
        try {
            return new Descriptors(Posix.raiseDescriptorLimit().soft());
        } catch (Posix.Failure | RuntimeException e) {
            log.warn("cannot read or raise the descriptor limit ({}); assuming 1024", e.getMessage());
            return new Descriptors(1024);
        }
    }

    /** No limit to speak of: for tests of the budgets alone. */
    public static Descriptors unlimited() {
        return new Descriptors(Long.MAX_VALUE);
    }

    /** The most connections the relay can hold open with {@link #RESERVE} and {@link #LISTENERS} left over. */
    public int connections() {
        long tunnels = (limit - RESERVE - LISTENERS) / 2;
        return Math.clamp(tunnels, 1, Integer.MAX_VALUE);
    }

    /**
     * A warning, one line, when the budget that must be met needs more descriptors than the limit
     * allows; empty when it fits. {@code spawns} 0: the relay's whole budget
     * ({@code limits.relayConnections}), for a daemon or a relay that serves what comes; else that
     * many spawns' budgets ({@code limits.spawnConnections} each), for a relay that knows its spawns,
     * such as {@code run}'s one, which never uses the relay's budget whole. Pure.
     */
    public Optional<String> shortfall(HostConfig.Limits limits, int spawns) {
        if (spawns < 0) {
            throw new IllegalArgumentException("spawns: " + spawns + " (expected: >= 0)");
        }
        long wanted = spawns == 0
                ? limits.relayConnections()
                : Math.min(limits.relayConnections(), (long) spawns * limits.spawnConnections());
        if (wanted <= connections()) {
            return Optional.empty();
        }
        long needed = 2L * wanted + RESERVE + LISTENERS;
        String budget = spawns == 0
                ? "limits.relayConnections " + limits.relayConnections()
                : spawns == 1
                        ? "this spawn's limits.spawnConnections " + limits.spawnConnections()
                        : spawns + " spawns of limits.spawnConnections " + limits.spawnConnections();
        String lower = spawns == 0 ? "limits.relayConnections" : "limits.spawnConnections";
        return Optional.of("the descriptor limit " + limit + " lets the relay hold " + connections()
                + " connections, fewer than " + budget + " (" + needed + " descriptors): raise the hard limit to "
                + needed + " (LimitNOFILE=" + needed + " in a systemd unit, ulimit -Hn " + needed
                + " in a shell) or lower " + lower + " in the host file");
    }

    /** {@link #shortfall(HostConfig.Limits, int)} for the relay's whole budget. */
    public Optional<String> shortfall(HostConfig.Limits limits) {
        return shortfall(limits, 0);
    }
}
