package io.portcullis.relay.policy;

import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.address.Ip;
import io.portcullis.relay.checks.Checks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One host's configuration (SPEC R2), as the operator wrote it. Built by the configuration
 * loader, which reports every error with its JSON path; this record only guards its invariants.
 *
 * @param ownNames this instance's public names, canonical (lowercase ASCII, no trailing dot)
 * @param ownAddresses this instance's public addresses, beyond its interface addresses
 */
public record HostConfig(
        DenyList denyList,
        List<String> ownNames,
        List<InetAddress> ownAddresses,
        Dns dns,
        OwnerConfig owner,
        Limits limits,
        Log log,
        Optional<Upstream> upstream,
        HandoffRules handoff) {

    /** Every default: the metadata deny list, no own names, the system's DNS, no upstream proxy. */
    public static final HostConfig DEFAULTS = new HostConfig(
            DenyList.DEFAULT, List.of(), List.of(), Dns.DEFAULTS, OwnerConfig.DEFAULTS, Limits.DEFAULTS, Log.DEFAULTS);

    public HostConfig {
        Objects.requireNonNull(denyList, "denyList");
        ownNames = List.copyOf(ownNames);
        ownAddresses = List.copyOf(ownAddresses);
        Objects.requireNonNull(dns, "dns");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(upstream, "upstream");
        Objects.requireNonNull(handoff, "handoff");
    }

    /** A configuration with the default hand-over rules. */
    public HostConfig(
            DenyList denyList,
            List<String> ownNames,
            List<InetAddress> ownAddresses,
            Dns dns,
            OwnerConfig owner,
            Limits limits,
            Log log,
            Optional<Upstream> upstream) {
        this(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, HandoffRules.DEFAULTS);
    }

    /** A configuration without an upstream proxy: every target is dialed directly. */
    public HostConfig(
            DenyList denyList,
            List<String> ownNames,
            List<InetAddress> ownAddresses,
            Dns dns,
            OwnerConfig owner,
            Limits limits,
            Log log) {
        this(denyList, ownNames, ownAddresses, dns, owner, limits, log, Optional.empty(), HandoffRules.DEFAULTS);
    }

    /** This configuration with other limits. */
    public HostConfig withLimits(Limits limits) {
        return new HostConfig(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
    }

    /** This configuration with another owner check configuration. */
    public HostConfig withOwner(OwnerConfig owner) {
        return new HostConfig(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
    }

    /** This configuration with another decision log. */
    public HostConfig withLog(Log log) {
        return new HostConfig(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
    }

    /** This configuration with other hand-over rules. */
    public HostConfig withHandoff(HandoffRules handoff) {
        return new HostConfig(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
    }

    /**
     * Who may hand a spawn's sockets over (SPEC R4), beyond its key and its {@code peerUid}.
     *
     * @param allowSharedPidNamespace whether an entry of the relay's own uid (not root of the relay's
     *     user namespace) may hand over from the relay's own pid namespace, where it and the program
     *     it becomes could signal and trace the relay; off, such a hand-over is refused
     */
    public record HandoffRules(boolean allowSharedPidNamespace) {
        public static final HandoffRules DEFAULTS = new HandoffRules(false);
    }

    /** This configuration with another upstream proxy, or none. */
    public HostConfig withUpstream(Optional<Upstream> upstream) {
        return new HostConfig(denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
    }

    /**
     * The HTTP proxy through which the relay reaches targets outside this host (SPEC R25). The relay
     * still resolves and judges every target itself; the proxy is told the checked address, or the
     * name when {@code sendNames} is on.
     *
     * @param proxy the proxy's host (a name, resolved with the relay's DNS for each connection, or
     *     an address) and port
     * @param authorization the {@code Proxy-Authorization} value, {@code Basic} and the encoded
     *     credentials read from the configured file; never printed
     * @param bypassBlocks targets whose every checked address is in one of these are dialed directly
     * @param bypassNames targets with one of these exact names (canonical) are dialed directly
     * @param sendNames send the target's name upstream instead of its checked address, so the
     *     upstream resolves it again
     * @param uids who may hold the proxy's port when the proxy is on this host
     */
    public record Upstream(
            Target proxy,
            Optional<String> authorization,
            List<Cidr> bypassBlocks,
            List<String> bypassNames,
            boolean sendNames,
            HolderUids uids) {
        public Upstream {
            Objects.requireNonNull(proxy, "proxy");
            Objects.requireNonNull(authorization, "authorization");
            bypassBlocks = List.copyOf(bypassBlocks);
            bypassNames = List.copyOf(bypassNames);
            Objects.requireNonNull(uids, "uids");
        }

        /** A proxy whose port, when it is on this host, the default uids may hold. */
        public Upstream(
                Target proxy,
                Optional<String> authorization,
                List<Cidr> bypassBlocks,
                List<String> bypassNames,
                boolean sendNames) {
            this(proxy, authorization, bypassBlocks, bypassNames, sendNames, HolderUids.DEFAULT);
        }

        /** Whether a target named {@code name} (when it has a name) with these checked addresses is dialed directly. */
        public boolean bypasses(Optional<String> name, List<InetAddress> addresses) {
            if (name.isPresent() && bypassNames.contains(name.get())) {
                return true;
            }
            if (addresses.isEmpty() || bypassBlocks.isEmpty()) {
                return false;
            }
            for (InetAddress address : addresses) {
                Ip ip = Ip.of(address);
                if (bypassBlocks.stream().noneMatch(block -> block.matcher().matches(ip))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return "Upstream[proxy=" + proxy + ", authorization=" + (authorization.isPresent() ? "(set)" : "none")
                    + ", bypassBlocks=" + bypassBlocks + ", bypassNames=" + bypassNames + ", sendNames=" + sendNames
                    + ", uids=" + uids + "]";
        }
    }

    /**
     * Name resolution (R9).
     *
     * @param servers the DNS servers; empty means those of {@code /etc/resolv.conf}
     * @param uids who may hold a server's port when the server is on this host (R25)
     */
    public record Dns(List<InetSocketAddress> servers, Duration timeout, HolderUids uids) {
        public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(5000);
        public static final Dns DEFAULTS = new Dns(List.of(), DEFAULT_TIMEOUT);

        public Dns {
            servers = List.copyOf(servers);
            Checks.positive("dns.timeoutMillis", timeout);
            Objects.requireNonNull(uids, "uids");
        }

        /** Servers whose ports, when they are on this host, the default uids may hold. */
        public Dns(List<InetSocketAddress> servers, Duration timeout) {
            this(servers, timeout, HolderUids.DEFAULT);
        }
    }

    /**
     * Who may hold the port of a server the relay itself talks to (the upstream proxy, a DNS
     * server) when that server is on this host: loopback or one of its own addresses (SPEC R25).
     * Another local user who binds that port first would otherwise receive the proxy's
     * credentials and every tunnel, or answer the relay's DNS questions.
     *
     * @param named the uids the operator named, and only those; empty: the default, which trusts
     *     root and the relay's own uid on any port, and any uid on a privileged port (below
     *     {@code net.ipv4.ip_unprivileged_port_start}, which only a process the administrator let
     *     bind one can hold, such as systemd-resolved on {@code 127.0.0.53:53})
     */
    public record HolderUids(Optional<Set<Integer>> named) {
        public static final HolderUids DEFAULT = new HolderUids(Optional.empty());

        public HolderUids {
            named = named.map(Set::copyOf);
            if (named.isPresent() && named.get().isEmpty()) {
                throw new IllegalArgumentException("uids: [] (expected: at least one uid)");
            }
        }

        /**
         * Why a server whose port {@code holders} hold may not be sent a byte; empty when it may.
         * Every holder must be trusted, and there must be one. Pure.
         *
         * @param privilegedPort whether the port needs a privilege to bind
         * @param relayUid the uid this relay runs as
         */
        public Optional<String> refusal(List<OwnerEvidence.Listener> holders, boolean privilegedPort, int relayUid) {
            if (holders.isEmpty()) {
                return Optional.of("nothing holds its port");
            }
            for (OwnerEvidence.Listener holder : holders) {
                if (!trusts(holder.uid(), privilegedPort, relayUid)) {
                    return Optional.of("its port is held by uid " + Integer.toUnsignedString(holder.uid())
                            + " (expected: " + expected(privilegedPort, relayUid) + ")");
                }
            }
            return Optional.empty();
        }

        private boolean trusts(int uid, boolean privilegedPort, int relayUid) {
            return named.map(uids -> uids.contains(uid)).orElse(uid == 0 || uid == relayUid || privilegedPort);
        }

        private String expected(boolean privilegedPort, int relayUid) {
            if (named.isPresent()) {
                return "one of the configured uids "
                        + named.get().stream()
                                .sorted(Integer::compareUnsigned)
                                .map(Integer::toUnsignedString)
                                .toList();
            }
            return "root or the relay's uid " + Integer.toUnsignedString(relayUid)
                    + (privilegedPort ? "" : ", since any user may bind this port");
        }
    }

    /**
     * Limits and timeouts (R16).
     *
     * @param httpRequestBytes the largest request body of a plain HTTP request
     * @param httpResponseBytes the largest answer body of a plain HTTP or door request
     * @param httpTotal the time from a plain HTTP or door request's head to the end of its answer
     * @param spawnRate new connections one spawn may open a second, on all its sockets together
     * @param spawnBurst new connections one spawn may open at once before {@code spawnRate} holds
     */
    public record Limits(
            int headerBytes,
            Duration headerTimeout,
            Duration connectTimeout,
            Duration idleTimeout,
            int spawnConnections,
            int relayConnections,
            int doorBodyBytes,
            long httpRequestBytes,
            long httpResponseBytes,
            Duration httpTotal,
            int spawnRate,
            int spawnBurst) {

        public static final int DEFAULT_SPAWN_RATE = 200;
        public static final int DEFAULT_SPAWN_BURST = 400;
        public static final long DEFAULT_HTTP_REQUEST_BYTES = 16L << 20;
        public static final long DEFAULT_HTTP_RESPONSE_BYTES = 64L << 20;
        public static final Duration DEFAULT_HTTP_TOTAL = Duration.ofMillis(300_000);

        public static final Limits DEFAULTS = new Limits(
                8192,
                Duration.ofMillis(10_000),
                Duration.ofMillis(10_000),
                Duration.ofMillis(900_000),
                512,
                16_384,
                1_048_576);

        public Limits {
            Checks.positive("limits.headerBytes", headerBytes);
            Checks.positive("limits.headerTimeoutMillis", headerTimeout);
            Checks.positive("limits.connectTimeoutMillis", connectTimeout);
            Checks.positive("limits.idleTimeoutMillis", idleTimeout);
            Checks.positive("limits.spawnConnections", spawnConnections);
            Checks.positive("limits.relayConnections", relayConnections);
            Checks.positive("limits.doorBodyBytes", doorBodyBytes);
            Checks.positive("limits.httpRequestBytes", httpRequestBytes);
            Checks.positive("limits.httpResponseBytes", httpResponseBytes);
            Checks.positive("limits.httpTotalMillis", httpTotal);
            Checks.positive("limits.spawnRate", spawnRate);
            Checks.positive("limits.spawnBurst", spawnBurst);
        }

        /** The limits with the default new-connection rate. */
        public Limits(
                int headerBytes,
                Duration headerTimeout,
                Duration connectTimeout,
                Duration idleTimeout,
                int spawnConnections,
                int relayConnections,
                int doorBodyBytes,
                long httpRequestBytes,
                long httpResponseBytes,
                Duration httpTotal) {
            this(
                    headerBytes,
                    headerTimeout,
                    connectTimeout,
                    idleTimeout,
                    spawnConnections,
                    relayConnections,
                    doorBodyBytes,
                    httpRequestBytes,
                    httpResponseBytes,
                    httpTotal,
                    DEFAULT_SPAWN_RATE,
                    DEFAULT_SPAWN_BURST);
        }

        /** The limits without the plain HTTP ones, which take their defaults. */
        public Limits(
                int headerBytes,
                Duration headerTimeout,
                Duration connectTimeout,
                Duration idleTimeout,
                int spawnConnections,
                int relayConnections,
                int doorBodyBytes) {
            this(
                    headerBytes,
                    headerTimeout,
                    connectTimeout,
                    idleTimeout,
                    spawnConnections,
                    relayConnections,
                    doorBodyBytes,
                    DEFAULT_HTTP_REQUEST_BYTES,
                    DEFAULT_HTTP_RESPONSE_BYTES,
                    DEFAULT_HTTP_TOTAL);
        }
    }

    /**
     * The decision log (R17).
     *
     * @param file where the lines go; empty means standard error
     */
    public record Log(Optional<Path> file) {
        public static final Log DEFAULTS = new Log(Optional.empty());

        public Log {
            Objects.requireNonNull(file, "file");
        }
    }
}
