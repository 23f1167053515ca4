package io.portcullis.relay.rules;

import io.portcullis.relay.address.Ip;
import io.portcullis.relay.address.Matcher;
import io.portcullis.relay.policy.Cidr;
import java.util.List;
import java.util.Optional;

/**
 * The special-purpose blocks of SPEC R14: an address in one of them is not global unicast. For
 * IPv6, everything outside {@code 2000::/3} is special, and some blocks inside it too.
 */
final class GlobalUnicast {
    private GlobalUnicast() {}

    /** A special-purpose block with the name the detail line shows. */
    record Block(Cidr cidr, String name, Matcher matcher) {
        static Block of(String cidr, String name) {
            Cidr parsed = Cidr.parse(cidr);
            return new Block(parsed, name, Matcher.of(parsed.network(), parsed.prefix()));
        }

        @Override
        public String toString() {
            return cidr + " (" + name + ")";
        }
    }

    static final List<Block> IPV4 = List.of(
            Block.of("0.0.0.0/8", "this network"),
            Block.of("10.0.0.0/8", "private-use"),
            Block.of("100.64.0.0/10", "shared address space"),
            Block.of("127.0.0.0/8", "loopback"),
            Block.of("169.254.0.0/16", "link-local"),
            Block.of("172.16.0.0/12", "private-use"),
            Block.of("192.0.0.0/24", "IETF protocol assignments"),
            Block.of("192.0.2.0/24", "documentation"),
            Block.of("192.31.196.0/24", "AS112"),
            Block.of("192.52.193.0/24", "AMT"),
            Block.of("192.88.99.0/24", "6to4 relay anycast"),
            Block.of("192.168.0.0/16", "private-use"),
            Block.of("192.175.48.0/24", "direct delegation AS112"),
            Block.of("198.18.0.0/15", "benchmarking"),
            Block.of("198.51.100.0/24", "documentation"),
            Block.of("203.0.113.0/24", "documentation"),
            Block.of("224.0.0.0/4", "multicast"),
            Block.of("240.0.0.0/4", "reserved, and broadcast"));

    private static final Block GLOBAL_V6 = Block.of("2000::/3", "global unicast");

    /** Named blocks outside {@code 2000::/3}, for a clearer detail line; all of them are special anyway. */
    private static final List<Block> IPV6_OUTSIDE = List.of(
            Block.of("::/128", "unspecified"),
            Block.of("::1/128", "loopback"),
            Block.of("::ffff:0:0/96", "IPv4-mapped"),
            Block.of("::/96", "IPv4-compatible"),
            Block.of("64:ff9b::/96", "NAT64"),
            Block.of("64:ff9b:1::/48", "local-use NAT64"),
            Block.of("100::/64", "discard-only"),
            Block.of("fc00::/7", "unique local"),
            Block.of("fe80::/10", "link-local"),
            Block.of("fec0::/10", "site-local"),
            Block.of("ff00::/8", "multicast"),
            Block.of("::/0", "outside 2000::/3"));

    static final List<Block> IPV6_INSIDE = List.of(
            Block.of("2001::/23", "IETF protocol assignments"),
            Block.of("2001:db8::/32", "documentation"),
            Block.of("2002::/16", "6to4"),
            Block.of("3fff::/20", "documentation"),
            Block.of("5f00::/16", "segment routing"));

    /** The special-purpose block holding {@code ip}; empty when it is global unicast. */
    static Optional<Block> special(Ip ip) {
        if (ip.v4()) {
            return first(IPV4, ip);
        }
        if (!GLOBAL_V6.matcher().matches(ip)) {
            return first(IPV6_OUTSIDE, ip);
        }
        return first(IPV6_INSIDE, ip);
    }

    private static Optional<Block> first(List<Block> blocks, Ip ip) {
        for (Block block : blocks) {
            if (block.matcher().matches(ip)) {
                return Optional.of(block);
            }
        }
        return Optional.empty();
    }
}
