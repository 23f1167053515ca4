package io.portcullis.relay.policy;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/** The operator's deny list (SPEC R2): blocks no target may reach, listed ones too. */
public final class DenyList {

    /** The cloud metadata addresses, used when the host configuration names no deny list. */
    public static final DenyList DEFAULT = new DenyList(List.of(
            Cidr.parse("169.254.169.254/32"),
            Cidr.parse("169.254.170.2/32"),
            Cidr.parse("100.100.100.200/32"),
            Cidr.parse("fd00:ec2::254/128")));

    private final List<Cidr> blocks;
    private final Cidr.Matcher[] matchers;

    public DenyList(List<Cidr> blocks) {
        this.blocks = List.copyOf(blocks);
        this.matchers = this.blocks.stream().map(Cidr::matcher).toArray(Cidr.Matcher[]::new);
    }

    public List<Cidr> blocks() {
        return blocks;
    }

    /** The first block holding {@code address}, or null. */
    public Cidr match(InetAddress address) {
        return match(Ip.of(address));
    }

    Cidr match(Ip ip) {
        for (int i = 0; i < matchers.length; i++) {
            if (matchers[i].matches(ip)) {
                return blocks.get(i);
            }
        }
        return null;
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
