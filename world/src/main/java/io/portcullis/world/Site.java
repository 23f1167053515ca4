package io.portcullis.world;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * One namespace of test hosts joined to the world's own namespace by a veth pair. The world's side
 * of the link takes the first address of each prefix; the hosts take the listed addresses, which
 * must lie inside a prefix. Only the prefixes are routed, so nothing in a site reaches anything else.
 *
 * @param role a short lowercase name, part of the namespace name ({@code inet}, {@code lan})
 */
public record Site(String role, List<Prefix> prefixes, List<InetAddress> hosts) {

    /** Global unicast test space: addresses the relay must treat as the internet. */
    public static Site internet() {
        return new Site(
                "inet",
                List.of(Prefix.parse("93.184.77.0/24"), Prefix.parse("2001:4860:77::/64")),
                List.of(
                        LiteralAddresses.address("93.184.77.10"), LiteralAddresses.address("93.184.77.11"),
                        LiteralAddresses.address("2001:4860:77::10"), LiteralAddresses.address("2001:4860:77::11")));
    }

    /** Private LAN space: reachable only as a listed target. */
    public static Site lan() {
        return new Site(
                "lan",
                List.of(Prefix.parse("192.168.77.0/24"), Prefix.parse("fd77:77::/64")),
                List.of(
                        LiteralAddresses.address("192.168.77.10"),
                        LiteralAddresses.address("192.168.77.11"),
                        LiteralAddresses.address("fd77:77::10")));
    }

    public Site {
        Objects.requireNonNull(role, "role");
        if (!role.matches("[a-z]{1,8}")) {
            throw new IllegalArgumentException("role: " + role + " (expected: 1-8 lowercase letters)");
        }
        prefixes = List.copyOf(prefixes);
        hosts = List.copyOf(hosts);
        if (prefixes.isEmpty() || hosts.isEmpty()) {
            throw new IllegalArgumentException("site " + role + ": (expected: at least one prefix and one host)");
        }
        for (InetAddress host : hosts) {
            Prefix prefix = prefixOf(prefixes, host);
            if (host.equals(prefix.at(1))) {
                throw new IllegalArgumentException("hosts: " + host.getHostAddress() + " (expected: not "
                        + prefix.at(1).getHostAddress() + ", the world's own side)");
            }
        }
    }

    /** The prefix of {@code prefixes} that holds {@code host}. */
    static Prefix prefixOf(List<Prefix> prefixes, InetAddress host) {
        return prefixes.stream()
                .filter(p -> p.contains(host))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "hosts: " + host.getHostAddress() + " (expected: inside " + prefixes + ")"));
    }

    /** The world's own address on this site's link, one per prefix. */
    public List<InetAddress> gateways() {
        return prefixes.stream().map(p -> p.at(1)).toList();
    }

    /** Whether {@code address} is one of this site's hosts or its link address on the world's side. */
    public boolean owns(InetAddress address) {
        return hosts.contains(address) || gateways().contains(address);
    }
}
