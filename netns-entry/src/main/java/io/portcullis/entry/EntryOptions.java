package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one entry serves: the relay's socket and the spawn's hand-over key, the requested proxy port, the forwards, the door, the
 * named entries' synthetic addresses and the DNS socket (SPEC R24), where
 * the readiness line goes, and the command to run. {@link CommandLine} builds it after checking
 * every argument, so the constructor only guards invariants.
 */
record EntryOptions(
        Path relay,
        Handoff.Key key,
        int proxyPort,
        List<Integer> forwards,
        OptionalInt door,
        List<InetSocketAddress> named,
        boolean dns,
        OptionalInt readyFd,
        List<String> command) {

    static final int DEFAULT_PROXY_PORT = 39080;

    EntryOptions {
        Objects.requireNonNull(relay, "relay");
        Objects.requireNonNull(key, "key");
        forwards = List.copyOf(forwards);
        Objects.requireNonNull(door, "door");
        named = List.copyOf(named);
        Objects.requireNonNull(readyFd, "readyFd");
        command = List.copyOf(command);
    }

    /** The DNS socket's address inside the namespace (SPEC R24): UDP 127.0.0.1:53. */
    static final InetSocketAddress DNS = new InetSocketAddress(Handoff.IPV4_LOOPBACK, 53);

    /**
     * The listeners in a fixed order: the proxy first, then the forwards as given, then the door,
     * the named entries' sockets as given and the DNS socket.
     * The proxy port moves up past every forward and the door port (SPEC R1, R20); the relay applies
     * the same rule, so both agree on the port of the proxy socket.
     */
    List<Endpoint> endpoints() {
        List<Endpoint> endpoints = new ArrayList<>();
        endpoints.add(new Endpoint(Handoff.Kind.PROXY, effectiveProxyPort()));
        forwards.forEach(port -> endpoints.add(new Endpoint(Handoff.Kind.FORWARD, port)));
        door.ifPresent(port -> endpoints.add(new Endpoint(Handoff.Kind.DOOR, port)));
        named.forEach(address ->
                endpoints.add(new Endpoint(Handoff.Kind.NAMED, address.getPort(), Optional.of(address.getAddress()))));
        if (dns) {
            endpoints.add(new Endpoint(Handoff.Kind.DNS, DNS.getPort(), Optional.of(DNS.getAddress())));
        }
        return List.copyOf(endpoints);
    }

    int effectiveProxyPort() {
        return proxyPortPast(proxyPort, taken());
    }

    Set<Integer> taken() {
        Set<Integer> taken = new TreeSet<>(forwards);
        door.ifPresent(taken::add);
        return taken;
    }

    /** The first port at or above {@code requested} that is not taken; 65536 when there is none. */
    static int proxyPortPast(int requested, Set<Integer> taken) {
        int port = requested;
        while (port <= 65535 && taken.contains(port)) {
            port++;
        }
        return port;
    }
}
