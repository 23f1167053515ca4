package io.portcullis.world;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** What the world's DNS server answers for a name, for one query. */
public sealed interface DnsAnswer {

    /** NOERROR with the addresses of the asked family: A gets the IPv4 ones, AAAA the IPv6 ones. */
    record Addresses(List<InetAddress> addresses) implements DnsAnswer {
        public Addresses {
            addresses = List.copyOf(addresses);
        }

        List<InetAddress> ofFamily(boolean ipv6) {
            return addresses.stream()
                    .filter(a -> ipv6 ? a instanceof Inet6Address : a instanceof Inet4Address)
                    .toList();
        }
    }

    /**
     * Too big for UDP: over UDP, NOERROR with only the first {@code fit} addresses of the asked
     * family, and the TC bit set when that is not all of them; over TCP, every address of {@code
     * whole} (SPEC R9: the client must ask again over TCP and judge the whole answer).
     */
    record Truncated(int fit, Addresses whole) implements DnsAnswer {
        public Truncated {
            Objects.requireNonNull(whole, "whole");
            if (fit < 0) {
                throw new IllegalArgumentException("fit: " + fit + " (expected: >= 0)");
            }
        }
    }

    /** NXDOMAIN: the name does not exist. */
    record NxDomain() implements DnsAnswer {}

    /** SERVFAIL: the server failed. */
    record ServFail() implements DnsAnswer {}

    /** No answer at all, ever: the client times out. */
    record Silent() implements DnsAnswer {}

    /** {@code then}, sent after {@code delay}. */
    record Delayed(Duration delay, DnsAnswer then) implements DnsAnswer {
        public Delayed {
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(then, "then");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay: " + delay + " (expected: not negative)");
            }
        }
    }

    /** The given address literals (both families may be mixed). */
    static DnsAnswer of(String... literals) {
        return new Addresses(
                Arrays.stream(literals).map(LiteralAddresses::address).toList());
    }

    static DnsAnswer of(List<InetAddress> addresses) {
        return new Addresses(addresses);
    }

    /** NOERROR with no address of either family. */
    static DnsAnswer empty() {
        return new Addresses(List.of());
    }

    /** Over UDP the first {@code fit} addresses of the asked family with TC set; over TCP all of them. */
    static DnsAnswer truncated(int fit, String... literals) {
        return new Truncated(
                fit,
                new Addresses(
                        Arrays.stream(literals).map(LiteralAddresses::address).toList()));
    }

    static DnsAnswer nxdomain() {
        return new NxDomain();
    }

    static DnsAnswer servfail() {
        return new ServFail();
    }

    static DnsAnswer silent() {
        return new Silent();
    }

    static DnsAnswer delayed(Duration delay, DnsAnswer then) {
        return new Delayed(delay, then);
    }
}
