package io.portcullis.owner.kernel;

import io.portcullis.owner.checks.Checks;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One LISTEN socket as the kernel reports it.
 *
 * @param address the bound address; an IPv4-mapped IPv6 bind stays an {@link Inet6Address}-family
 *     listener and is recorded with {@code mapped} set, because Java folds such addresses to IPv4
 * @param v6Only whether an INET6 socket refuses IPv4; always {@link V6Only#OFF} for an INET one
 * @param ifindex the bound device, 0 when none
 */
public record TcpListener(
        Family family, InetAddress address, boolean mapped, int port, int uid, long inode, V6Only v6Only, int ifindex) {

    /** The socket's address family, which is not always the family of {@link #address()}. */
    public enum Family {
        INET,
        INET6
    }

    /**
     * IPV6_V6ONLY as far as the reader can tell. sock_diag reports it ({@code INET_DIAG_SKV6ONLY});
     * the {@code /proc/net/tcp6} fallback cannot, and says {@link #UNKNOWN}.
     */
    public enum V6Only {
        ON,
        OFF,
        UNKNOWN
    }

    public TcpListener {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(v6Only, "v6Only");
        Checks.portOrZero("port", port);
        if (family == Family.INET && (address instanceof Inet6Address || mapped)) {
            throw new IllegalArgumentException("address: " + address + " (expected: IPv4 for an INET socket)");
        }
        if (family == Family.INET && v6Only != V6Only.OFF) {
            throw new IllegalArgumentException("v6Only: " + v6Only + " (expected: OFF for an INET socket)");
        }
    }
}
