package io.portcullis.relay.address;

import java.net.InetAddress;

/** An address block in a form that matches without allocating. */
public record Matcher(boolean v4, long hi, long lo, long maskHi, long maskLo) {

    /** The block of {@code network}, whose host bits are zero, and {@code prefix}. */
    public static Matcher of(InetAddress network, int prefix) {
        Ip net = Ip.of(network);
        return new Matcher(net.v4(), net.hi(), net.lo(), maskHi(net.v4(), prefix), maskLo(net.v4(), prefix));
    }

    public boolean matches(Ip ip) {
        return ip.v4() == v4 && (ip.hi() & maskHi) == hi && (ip.lo() & maskLo) == lo;
    }

    private static long maskHi(boolean v4, int prefix) {
        if (v4) {
            return 0;
        }
        return prefix >= 64 ? -1L : prefix == 0 ? 0 : -1L << (64 - prefix);
    }

    private static long maskLo(boolean v4, int prefix) {
        if (v4) {
            return prefix == 0 ? 0 : (0xffff_ffffL << (32 - prefix)) & 0xffff_ffffL;
        }
        return prefix <= 64 ? 0 : prefix == 128 ? -1L : -1L << (128 - prefix);
    }
}
