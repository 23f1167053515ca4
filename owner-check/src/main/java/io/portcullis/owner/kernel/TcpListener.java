package io.portcullis.owner.kernel;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One LISTEN socket as the kernel reports it.
 *
 * @param address the bound address; an IPv4-mapped IPv6 bind stays an {@link Inet6Address}-family
 *     listener and is recorded with {@code mapped} set, because Java folds such addresses to IPv4
 * @param ifindex the bound device, 0 when none
 */
public record TcpListener(
        Family family,
        InetAddress address,
        boolean mapped,
        int port,
        int uid,
        long inode,
        boolean v6Only,
        int ifindex) {

    /** The socket's address family, which is not always the family of {@link #address()}. */
    public enum Family {
        INET,
        INET6
    }

    public TcpListener {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(address, "address");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
        }
        if (family == Family.INET && (address instanceof Inet6Address || mapped)) {
            throw new IllegalArgumentException("address: " + address + " (expected: IPv4 for an INET socket)");
        }
    }
}
