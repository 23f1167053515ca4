package io.portcullis.relay.policy;

import java.net.InetAddress;
import java.util.List;

/** The operator's deny list (SPEC R2): blocks no target may reach, listed ones too. */
public record DenyList(List<Cidr> blocks) {

    /** The cloud metadata addresses, used when the host configuration names no deny list. */
    public static final DenyList DEFAULT = new DenyList(List.of(
            Cidr.parse("169.254.169.254/32"),
            Cidr.parse("169.254.170.2/32"),
            Cidr.parse("100.100.100.200/32"),
            Cidr.parse("fd00:ec2::254/128")));

    public DenyList {
        blocks = List.copyOf(blocks);
    }

    /** The first block holding {@code address}, or null. */
    public Cidr match(InetAddress address) {
        return match(Ip.of(address));
    }

    Cidr match(Ip ip) {
        for (Cidr block : blocks) {
            if (block.contains(ip)) {
                return block;
            }
        }
        return null;
    }
}
