package io.portcullis.relay.policy;

import io.portcullis.relay.address.Ip;
import io.portcullis.relay.address.Matcher;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's deny list (SPEC R2): blocks no target may reach, listed ones too.
 *
 * <p>IPv4-mapped addresses are IPv4 here (R14): a block written in mapped form
 * ({@code ::ffff:10.0.0.0/104}) also holds the IPv4 addresses it maps ({@code 10.0.0.0/8}), and an
 * IPv4-mapped or IPv4-compatible address is matched both as written and as its IPv4 address.
 */
public final class DenyList {

    /** The cloud metadata addresses, used when the host configuration names no deny list. */
    public static final DenyList DEFAULT = new DenyList(List.of(
            Cidr.parse("169.254.169.254/32"),
            Cidr.parse("169.254.170.2/32"),
            Cidr.parse("100.100.100.200/32"),
            Cidr.parse("fd00:ec2::254/128")));

    private final List<Cidr> blocks;
    private final Matcher[] matchers;
    /** For each matcher, the block as the operator wrote it, for the detail line. */
    private final Cidr[] written;

    public DenyList(List<Cidr> blocks) {
        this.blocks = List.copyOf(blocks);
        List<Matcher> matchers = new ArrayList<>();
        List<Cidr> written = new ArrayList<>();
        for (Cidr block : this.blocks) {
            matchers.add(block.matcher());
            written.add(block);
            block.mappedIpv4().ifPresent(v4 -> {
                matchers.add(v4.matcher());
                written.add(block);
            });
        }
        this.matchers = matchers.toArray(Matcher[]::new);
        this.written = written.toArray(Cidr[]::new);
    }

    public List<Cidr> blocks() {
        return blocks;
    }

    /** The first block holding {@code address}; empty when none does. */
    public Optional<Cidr> match(InetAddress address) {
        return match(Ip.of(address));
    }

    /** As {@link #match(InetAddress)}. */
    Optional<Cidr> match(Ip ip) {
        Optional<Cidr> block = matchAsDialed(ip);
        Ip judged = ip.judgedAs();
        return block.isEmpty() && judged != ip ? matchAsDialed(judged) : block;
    }

    /**
     * The first block holding {@code address} or the IPv4 address it carries in any form
     * (mapped, compatible, NAT64, 6to4, Teredo); empty when none does: the check a listed target
     * gets (R14), for an address the relay dials that no target names, such as an upstream proxy's.
     */
    public Optional<Cidr> matchAnyForm(InetAddress address) {
        Ip ip = Ip.of(address);
        Optional<Cidr> block = matchAsDialed(ip);
        Optional<Ip.Embedded> embedded = ip.embedded();
        return block.isEmpty() && embedded.isPresent()
                ? matchAsDialed(embedded.get().address())
                : block;
    }

    /**
     * The first block holding {@code address} itself, not the IPv4 address it may carry; empty when
     * none does: the policy's rules, which judge a carried address on their own, ask this.
     */
    public Optional<Cidr> matchAsDialed(InetAddress address) {
        return matchAsDialed(Ip.of(address));
    }

    private Optional<Cidr> matchAsDialed(Ip ip) {
        for (int i = 0; i < matchers.length; i++) {
            if (matchers[i].matches(ip)) {
                return Optional.of(written[i]);
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DenyList list && list.blocks.equals(blocks);
    }

    @Override
    public int hashCode() {
        return Objects.hash(blocks);
    }

    @Override
    public String toString() {
        return "DenyList" + blocks;
    }
}
