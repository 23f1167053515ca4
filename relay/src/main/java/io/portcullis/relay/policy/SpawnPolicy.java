package io.portcullis.relay.policy;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.checks.Checks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One spawn's policy (SPEC R1), as the wall wrote it. Built by the configuration loader, which
 * reports every error with its JSON path; this record only guards its invariants.
 *
 * @param id the spawn's id, also the add-on id the owner check asks about
 * @param proxyPort the proxy port the wall asked for; see {@link #effectiveProxyPort()}
 * @param peerUid the only uid that may connect to the spawn's socket, when present
 * @param shadow a second policy decided beside this one for every connection and never enforced
 *     (SPEC R26); its id, proxy port and peer uid are this policy's, it has no door and no shadow
 */
public record SpawnPolicy(
        String id,
        Network network,
        List<Entry> hosts,
        int proxyPort,
        Optional<Door> door,
        OptionalInt peerUid,
        Optional<SpawnPolicy> shadow) {

    public static final int DEFAULT_PROXY_PORT = 39080;

    public SpawnPolicy {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(network, "network");
        hosts = List.copyOf(hosts);
        Objects.requireNonNull(door, "door");
        Objects.requireNonNull(peerUid, "peerUid");
        Objects.requireNonNull(shadow, "shadow");
        if (shadow.isPresent()
                && (shadow.get().shadow().isPresent() || shadow.get().door().isPresent())) {
            throw new IllegalArgumentException("shadow: (expected: a policy without a shadow or a door of its own)");
        }
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id: \"\" (expected: a non-empty id)");
        }
        Checks.port("proxyPort", proxyPort);
        Set<Target> seen = new HashSet<>();
        Set<Integer> forwarded = new HashSet<>();
        for (Entry entry : hosts) {
            if (!seen.add(entry.target())) {
                throw new IllegalArgumentException("hosts: " + entry.target() + " (expected: each target once)");
            }
            if (entry.isForward() && !forwarded.add(entry.target().port())) {
                throw new IllegalArgumentException(
                        "hosts: " + entry.target() + " (expected: one loopback entry per port)");
            }
        }
        if (door.isPresent() && forwarded.contains(door.get().port())) {
            throw new IllegalArgumentException(
                    "door.port: " + door.get().port() + " (expected: a port no forward uses)");
        }
        if (peerUid.isPresent() && peerUid.getAsInt() < 0) {
            throw new IllegalArgumentException("peerUid: " + peerUid.getAsInt() + " (expected: >= 0)");
        }
        // The hand-over carries every socket in one message: the proxy, forwards and door on two
        // addresses each, one per named entry, and the DNS socket.
        long named = hosts.stream().filter(Entry::isNamed).count();
        long sockets = 2L * (1 + forwarded.size() + (door.isPresent() ? 1 : 0)) + named + 1;
        if (sockets > MAX_SOCKETS) {
            throw new IllegalArgumentException("hosts: " + forwarded.size() + " loopback and " + named
                    + " other tcp entries need " + sockets + " sockets in the namespace (expected: at most "
                    + MAX_SOCKETS + ")");
        }
    }

    /** A policy without a shadow. */
    public SpawnPolicy(
            String id, Network network, List<Entry> hosts, int proxyPort, Optional<Door> door, OptionalInt peerUid) {
        this(id, network, hosts, proxyPort, door, peerUid, Optional.empty());
    }

    /** The most sockets one hand-over carries (the hand-over format's own bound). */
    public static final int MAX_SOCKETS = 250;

    /** The first synthetic address is 127.77.0.1; the n-th distinct host of a named entry gets 127.77.0.0 + n. */
    private static final int SYNTHETIC_BASE = (127 << 24) | (77 << 16);

    /** What the spawn may reach (SPEC R1). */
    public enum Network {
        /** Nothing at all: no internet, no listed host, no forward, no door. */
        NONE("none"),
        /** Listed hosts, forwards and the door only. */
        LISTED("listed"),
        /** Listed, plus HTTPS CONNECT to port 443 of global addresses (R8). */
        INTERNET("internet");

        private final String json;

        Network(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }
    }

    /** How a listed entry is reached. */
    public enum Scheme {
        /** By CONNECT. */
        HTTPS("https"),
        /** By CONNECT. */
        TCP("tcp"),
        /** By an absolute-form plain HTTP request (R10). */
        HTTP("http");

        private final String json;

        Scheme(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }

        /** True when a request of this kind may use an entry of this scheme. */
        public boolean serves(Request.Kind kind) {
            return switch (kind) {
                case CONNECT -> this != HTTP;
                case HTTP -> this == HTTP;
                case FORWARD -> true;
            };
        }
    }

    /**
     * One listed {@code host:port}: the whole permission.
     *
     * @param source who chose it: the owner, or a manifest default (R12)
     */
    public record Entry(Target target, Scheme scheme, OwnerQuery.Source source) {
        public Entry {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(scheme, "scheme");
            Objects.requireNonNull(source, "source");
        }

        /** A loopback entry is also a forward: the same port inside the namespace (R1, R11). */
        public boolean isForward() {
            return target.isLoopback();
        }

        /**
         * A {@code tcp} entry whose host is not loopback is reached inside the namespace by name, on
         * a synthetic loopback address of its own (R24).
         */
        public boolean isNamed() {
            return scheme == Scheme.TCP && !target.isLoopback();
        }
    }

    /**
     * A named entry's socket inside the namespace (R24).
     *
     * @param address the synthetic address in 127.77.0.0/16 and the entry's port
     */
    public record Named(Entry entry, InetSocketAddress address) {
        public Named {
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(address, "address");
        }
    }

    /**
     * The named entries in policy order, each with its synthetic address: one address per distinct
     * host, from 127.77.0.1 up in the order the hosts first appear, so the same policy always gives
     * the same addresses, and two ports of one host share its address (the DNS answers one address
     * per name).
     */
    public List<Named> named() {
        Map<String, Integer> hostNumbers = new LinkedHashMap<>();
        List<Named> named = new ArrayList<>();
        for (Entry entry : hosts) {
            if (!entry.isNamed()) {
                continue;
            }
            int number = hostNumbers.computeIfAbsent(entry.target().host(), host -> hostNumbers.size() + 1);
            named.add(new Named(
                    entry,
                    new InetSocketAddress(synthetic(number), entry.target().port())));
        }
        return List.copyOf(named);
    }

    /** The named entry whose socket is {@code address}, if any. */
    public Optional<Named> named(InetSocketAddress address) {
        return named().stream().filter(n -> n.address().equals(address)).findFirst();
    }

    /** The synthetic address of a named entry's host, if any host of a named entry is {@code host}. */
    public Optional<InetAddress> syntheticAddress(String host) {
        return named().stream()
                .filter(n -> n.entry().target().host().equals(host))
                .map(n -> n.address().getAddress())
                .findFirst();
    }

    private static InetAddress synthetic(int number) {
        int value = SYNTHETIC_BASE + number;
        byte[] bytes = {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("four bytes are always an address", e);
        }
    }

    /**
     * The spawn's door (R13).
     *
     * @param port the gateway's door port as seen inside the namespace
     * @param tokenFile where the relay writes the door token
     * @param tokenHeader the request header that carries the token
     */
    public record Door(int port, List<Route> routes, Path tokenFile, String tokenHeader) {
        public static final String DEFAULT_TOKEN_HEADER = "X-Door-Token";

        public Door {
            Checks.port("door.port", port);
            routes = List.copyOf(routes);
            Objects.requireNonNull(tokenFile, "tokenFile");
            Objects.requireNonNull(tokenHeader, "tokenHeader");
        }
    }

    /** One exact door route: a method and a path. */
    public record Route(String method, String path) {
        public Route {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
        }
    }

    /** The entries that are forwards, in policy order. */
    public List<Entry> forwards() {
        List<Entry> forwards = new ArrayList<>();
        for (Entry entry : hosts) {
            if (entry.isForward()) {
                forwards.add(entry);
            }
        }
        return forwards;
    }

    /** The forward listening on {@code port}, if any. */
    public Optional<Entry> forward(int port) {
        for (Entry entry : hosts) {
            if (entry.isForward() && entry.target().port() == port) {
                return Optional.of(entry);
            }
        }
        return Optional.empty();
    }

    /** The entry for exactly this target, if any. */
    public Optional<Entry> entry(Target target) {
        for (Entry entry : hosts) {
            if (entry.target().equals(target)) {
                return Optional.of(entry);
            }
        }
        return Optional.empty();
    }

    /** The proxy port in use: the one asked for, moved up past every forward and the door (R1, R20). */
    public int effectiveProxyPort() {
        int port = proxyPort;
        while (port < 65535
                && (forward(port).isPresent() || (door.isPresent() && door.get().port() == port))) {
            port++;
        }
        return port;
    }
}
