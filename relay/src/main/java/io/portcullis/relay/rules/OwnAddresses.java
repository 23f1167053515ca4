package io.portcullis.relay.rules;

import io.portcullis.relay.address.Ip;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;

/**
 * A snapshot of this host's own addresses (SPEC R15): the interface addresses, the configured
 * ones and those the own names resolved to. Loopback ({@code 127.0.0.0/8}, {@code ::1}) and the
 * unspecified addresses always count, whatever the snapshot holds. It also names the own names
 * whose last lookup failed: while there is one, the internet shape refuses every target.
 */
public final class OwnAddresses {

    /** Loopback and unspecified only. */
    public static final OwnAddresses NONE = new OwnAddresses(Set.of());

    private final Set<Ip> addresses;
    private final Set<InetAddress> shown;
    private final Set<String> unresolvedNames;

    /** A snapshot in which every own name resolved. */
    public OwnAddresses(Set<? extends InetAddress> addresses) {
        this(addresses, Set.of());
    }

    /**
     * @param unresolvedNames the own names whose last lookup did not resolve (R15)
     */
    public OwnAddresses(Set<? extends InetAddress> addresses, Set<String> unresolvedNames) {
        Set<Ip> ips = new HashSet<>();
        for (InetAddress address : addresses) {
            ips.add(Ip.of(address).judgedAs());
        }
        this.addresses = Set.copyOf(ips);
        this.shown = Set.copyOf(addresses);
        this.unresolvedNames = Set.copyOf(unresolvedNames);
    }

    /** The own names whose last lookup did not resolve; empty when every one did. */
    public Set<String> unresolvedNames() {
        return unresolvedNames;
    }

    /** The addresses of the snapshot, without the implied loopback and unspecified ones. */
    public Set<InetAddress> addresses() {
        return shown;
    }

    public boolean contains(InetAddress address) {
        return contains(Ip.of(address));
    }

    boolean contains(Ip address) {
        Ip ip = address.judgedAs();
        if (ip.v4()) {
            return (ip.lo() >>> 24) == 127 || ip.lo() == 0 || addresses.contains(ip);
        }
        return (ip.hi() == 0 && (ip.lo() == 0 || ip.lo() == 1)) || addresses.contains(ip);
    }

    @Override
    public String toString() {
        return "OwnAddresses" + shown + (unresolvedNames.isEmpty() ? "" : ", unresolved " + unresolvedNames);
    }
}
