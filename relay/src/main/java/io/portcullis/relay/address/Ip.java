package io.portcullis.relay.address;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Optional;

/**
 * An address as two longs, so that block matching allocates nothing. IPv4 lives in the low 32
 * bits of {@code lo} with {@code hi} zero.
 */
public record Ip(boolean v4, long hi, long lo) {

    public static Ip of(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return new Ip(true, 0, Integer.toUnsignedLong(read(b, 0, 4)));
        }
        return new Ip(
                false,
                ((long) read(b, 0, 4) << 32) | Integer.toUnsignedLong(read(b, 4, 4)),
                ((long) read(b, 8, 4) << 32) | Integer.toUnsignedLong(read(b, 12, 4)));
    }

    public static Ip v4(long value) {
        return new Ip(true, 0, value & 0xffff_ffffL);
    }

    private static int read(byte[] b, int offset, int length) {
        int value = 0;
        for (int i = offset; i < offset + length; i++) {
            value = (value << 8) | (b[i] & 0xff);
        }
        return value;
    }

    /**
     * The IPv4 address embedded in an IPv6 one (SPEC R14): mapped {@code ::ffff:0:0/96}, compatible
     * {@code ::/96} (not {@code ::} or {@code ::1}), NAT64 {@code 64:ff9b::/96}, 6to4
     * {@code 2002::/16}, and the Teredo client {@code 2001::/32}; empty when none.
     */
    public Optional<Embedded> embedded() {
        if (v4) {
            return Optional.empty();
        }
        if (hi == 0 && (lo >>> 32) == 0xffffL) {
            return Optional.of(new Embedded("IPv4-mapped", v4(lo), true));
        }
        if (hi == 0 && (lo >>> 32) == 0 && (lo & 0xffff_ffffL) > 1) {
            return Optional.of(new Embedded("IPv4-compatible", v4(lo), true));
        }
        if (hi == 0x0064_ff9b_0000_0000L && (lo >>> 32) == 0) {
            return Optional.of(new Embedded("NAT64", v4(lo), false));
        }
        if ((hi >>> 48) == 0x2002L) {
            return Optional.of(new Embedded("6to4", v4(hi >>> 16), false));
        }
        if ((hi >>> 32) == 0x2001_0000L) {
            return Optional.of(new Embedded("Teredo", v4(~lo), false));
        }
        return Optional.empty();
    }

    /**
     * An IPv4 address carried inside an IPv6 one.
     *
     * @param same true when the IPv6 address reaches that IPv4 address itself (mapped, compatible)
     */
    public record Embedded(String form, Ip address, boolean same) {}

    /**
     * The address this one is judged as (R14): the IPv4 address an IPv4-mapped or -compatible
     * address carries, else this address itself.
     */
    public Ip judgedAs() {
        Optional<Embedded> embedded = embedded();
        return embedded.isPresent() && embedded.get().same() ? embedded.get().address() : this;
    }

    public InetAddress toInetAddress() {
        try {
            if (v4) {
                return InetAddress.getByAddress(bytes(lo, 4));
            }
            byte[] b = new byte[16];
            System.arraycopy(bytes(hi, 8), 0, b, 0, 8);
            System.arraycopy(bytes(lo, 8), 0, b, 8, 8);
            return java.net.Inet6Address.getByAddress(null, b, -1);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("unreachable: a fixed-length address", e);
        }
    }

    private static byte[] bytes(long value, int length) {
        byte[] b = new byte[length];
        for (int i = length - 1; i >= 0; i--) {
            b[i] = (byte) value;
            value >>>= 8;
        }
        return b;
    }

    @Override
    public String toString() {
        return Literals.format(toInetAddress());
    }
}
