package io.portcullis.owner;

import io.portcullis.owner.checks.Checks;
import io.portcullis.owner.kernel.Answering;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One question for the owner check: may add-on {@code addonId} reach {@code address:port} on this
 * host, for an entry that the owner typed or that came from a manifest default?
 *
 * @param address an IPv4-mapped or IPv4-compatible IPv6 address is kept as the IPv4 address it
 *     carries (SPEC R14, R30), so it is judged by the listeners that answer that address, and one
 *     address has one cache key
 * @param hostOwn whether the address is one of this host's own (SPEC R15), so that the host's
 *     listeners may answer it; false for an address asked about only because it lies in a Docker
 *     network (R32), which only a container can answer
 */
public record OwnerQuery(String addonId, Source source, InetAddress address, int port, boolean hostOwn) {

    /** Where the policy entry came from (SPEC R1, R12). */
    public enum Source {
        /** A value the owner typed. */
        OWNER,
        /** A manifest default: only this add-on's own running compose project may answer. */
        DEFAULT
    }

    public OwnerQuery {
        Objects.requireNonNull(addonId, "addonId");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(address, "address");
        address = Answering.unmapped(address);
        if (addonId.isEmpty()) {
            throw new IllegalArgumentException("addonId: \"\" (expected: a non-empty add-on id)");
        }
        Checks.port("port", port);
    }

    /** A question about one of this host's own addresses. */
    public OwnerQuery(String addonId, Source source, InetAddress address, int port) {
        this(addonId, source, address, port, true);
    }
}
