package io.portcullis.owner;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Who holds a port of this host: every socket that would receive a TCP connection (a LISTEN
 * socket) or a UDP datagram (a bound socket, connected or not) sent to an address and port, each
 * with its uid, found by the rules that find a target's listeners (SPEC R30: the exact address,
 * the wildcard of its family, a dual-stack or v4-mapped bind, no device or loopback; an
 * IPv4-mapped address is the IPv4 address it carries). Nothing is judged: the caller decides which
 * uids may hold the port (SPEC R25). Never blocks the caller.
 */
@FunctionalInterface
public interface PortHolders {

    /** The transport whose sockets are asked about. */
    enum Protocol {
        TCP,
        UDP
    }

    /**
     * The sockets holding {@code address} port {@code port} for {@code protocol}.
     *
     * @return completes with the holders, or exceptionally when they could not be read (the
     *     kernel's tables, or no answer in time): the caller must refuse, not guess
     */
    CompletableFuture<Holders> holders(Protocol protocol, InetAddress address, int port);

    /**
     * @param sockets every socket that would receive what is sent there; empty: none would
     * @param privilegedPort whether binding the port needs {@code CAP_NET_BIND_SERVICE} in this
     *     network namespace (it is below {@code net.ipv4.ip_unprivileged_port_start}); false when
     *     that could not be read
     */
    record Holders(List<OwnerEvidence.Listener> sockets, boolean privilegedPort) {
        public Holders {
            sockets = List.copyOf(sockets);
        }
    }
}
