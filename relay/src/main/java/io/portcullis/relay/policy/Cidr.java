package io.portcullis.relay.policy;

import io.portcullis.relay.address.Ip;
import io.portcullis.relay.address.Literals;
import io.portcullis.relay.address.Matcher;
import io.portcullis.relay.address.Strings;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * An address block, IPv4 or IPv6, written {@code address/prefix} in canonical form. Host bits must
 * be zero, so one block has one spelling.
 */
public record Cidr(InetAddress network, int prefix) {

    public Cidr {
        Objects.requireNonNull(network, "network");
        int max = network.getAddress().length * 8;
        if (prefix < 0 || prefix > max) {
            throw new IllegalArgumentException("prefix: " + prefix + " (expected: 0-" + max + ")");
        }
        if (!Matcher.of(network, prefix).matches(Ip.of(network))) {
            throw new IllegalArgumentException(
                    "network: " + Literals.format(network) + "/" + prefix + " (expected: host bits zero)");
        }
    }

    /**
     * Parses {@code a.b.c.d/n} or {@code x:y::/n}; a bare address is a block of one.
     *
     * @throws IllegalArgumentException with a message {@code "text" (expected: ...)}
     */
    public static Cidr parse(String text) {
        Objects.requireNonNull(text, "text");
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        Optional<InetAddress> parsed =
                Literals.ipv4(address).<InetAddress>map(v4 -> v4).or(() -> Literals.ipv6(address));
        int max = parsed.map(network -> network.getAddress().length * 8).orElse(0);
        int prefix = slash < 0 ? max : Literals.decimal(text.substring(slash + 1), 3);
        if (parsed.isEmpty() || prefix < 0 || prefix > max) {
            throw new IllegalArgumentException(
                    Strings.quote(text) + " (expected: address/prefix, e.g. 10.0.0.0/8 or fd00::/8)");
        }
        InetAddress network = parsed.get();
        try {
            return new Cidr(network, prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Strings.quote(text) + " (expected: host bits zero)", e);
        }
    }

    /**
     * The IPv4 block that a block written in IPv4-mapped form stands for (R14): an IPv4-mapped
     * address is judged as its IPv4 address, so {@code ::ffff:10.0.0.0/104} is {@code 10.0.0.0/8}.
     * Empty for an IPv4 block, and for an IPv6 block that is not inside {@code ::ffff:0:0/96}.
     */
    Optional<Cidr> mappedIpv4() {
        Ip net = Ip.of(network);
        if (net.v4() || prefix < 96 || net.hi() != 0 || (net.lo() >>> 32) != 0xffffL) {
            return Optional.empty();
        }
        return Optional.of(new Cidr(Ip.v4(net.lo()).toInetAddress(), prefix - 96));
    }

    /** The block in a form that matches without allocating. */
    Matcher matcher() {
        return Matcher.of(network, prefix);
    }

    @Override
    public String toString() {
        return Literals.format(network) + "/" + prefix;
    }
}
