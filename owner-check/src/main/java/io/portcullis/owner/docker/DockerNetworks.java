package io.portcullis.owner.docker;

import io.portcullis.owner.kernel.Answering;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Where containers of this host's Docker networks may have addresses (SPEC R32): every subnet of
 * the last network list, the subnets of this host's Docker bridge interfaces ({@code docker0},
 * {@code br-*}), and every address of the last container list. Kept when Docker goes down, so a
 * target there is still known to need Docker's word ({@code owner-docker-down}). Immutable.
 */
public final class DockerNetworks {

    /** Knows no network: nothing is container space. */
    public static final DockerNetworks NONE = new DockerNetworks(List.of());

    private final List<Block> blocks;

    public DockerNetworks(Collection<Block> blocks) {
        this.blocks = List.copyOf(new LinkedHashSet<>(blocks));
    }

    /** Whether {@code address} (an IPv4-mapped one as its IPv4 address) lies in a known Docker network. */
    public boolean contains(InetAddress address) {
        InetAddress judged = Answering.unmapped(Objects.requireNonNull(address, "address"));
        for (Block block : blocks) {
            if (block.contains(judged)) {
                return true;
            }
        }
        return false;
    }

    public List<Block> blocks() {
        return blocks;
    }

    /** This view and {@code other} together. */
    public DockerNetworks with(Collection<Block> other) {
        Set<Block> all = new LinkedHashSet<>(blocks);
        all.addAll(other);
        return new DockerNetworks(all);
    }

    @Override
    public String toString() {
        return "DockerNetworks" + blocks;
    }

    /**
     * One subnet. {@code base} is kept with its host bits cleared.
     *
     * @param prefix 0-32 for IPv4, 0-128 for IPv6
     */
    public record Block(InetAddress base, int prefix) {
        public Block {
            Objects.requireNonNull(base, "base");
            int bits = base.getAddress().length * 8;
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("prefix: " + prefix + " (expected: 0-" + bits + ")");
            }
            base = masked(base, prefix);
        }

        /** One address. */
        public static Block of(InetAddress address) {
            return new Block(address, address.getAddress().length * 8);
        }

        /**
         * A subnet as Docker writes it ({@code 172.17.0.0/16}, {@code fd00:1::/64}).
         *
         * @throws IllegalArgumentException when it is not one
         */
        public static Block parse(String cidr) {
            int slash = cidr.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("subnet: " + cidr + " (expected: address/prefix)");
            }
            try {
                return new Block(
                        InetAddress.ofLiteral(cidr.substring(0, slash)), Integer.parseInt(cidr.substring(slash + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("subnet: " + cidr + " (expected: address/prefix)", e);
            }
        }

        boolean contains(InetAddress address) {
            return (address instanceof Inet4Address) == (base instanceof Inet4Address)
                    && masked(address, prefix).equals(base);
        }

        private static InetAddress masked(InetAddress address, int prefix) {
            byte[] b = address.getAddress();
            for (int i = 0; i < b.length; i++) {
                int keep = Math.clamp(prefix - i * 8L, 0, 8);
                b[i] &= (byte) (0xff << (8 - keep));
            }
            try {
                return InetAddress.getByAddress(b);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException("unreachable: a 4- or 16-byte address", e);
            }
        }

        @Override
        public String toString() {
            return base.getHostAddress() + "/" + prefix;
        }
    }

    /** The blocks of a list of Docker subnets, leaving out what does not parse. */
    static List<Block> subnets(Collection<String> cidrs) {
        List<Block> out = new ArrayList<>();
        for (String cidr : cidrs) {
            try {
                out.add(Block.parse(cidr));
            } catch (IllegalArgumentException e) {
                // Docker wrote something else; the container addresses still mark that network.
            }
        }
        return out;
    }
}
