package io.portcullis.relay.address;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Strict address literals (SPEC R7): IPv4 as exactly four decimal parts without leading zeros,
 * IPv6 as RFC 4291 text without a zone. Written back in one canonical form (RFC 5952), so that
 * one address has one spelling. The JDK's parsers are not used: they accept forms R7 refuses.
 */
public final class Literals {
    private Literals() {}

    /** The IPv4 address; empty when {@code text} is not a strict dotted quad. */
    public static Optional<Inet4Address> ipv4(String text) {
        return quad(text, 0, text.length()).map(b -> (Inet4Address) address(b));
    }

    /** The IPv6 address (kept IPv6 even when IPv4-mapped); empty when {@code text} is not one. */
    public static Optional<Inet6Address> ipv6(String text) {
        Optional<byte[]> b = sixteen(text);
        if (b.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Inet6Address.getByAddress(null, b.get(), -1));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static InetAddress address(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("unreachable: a four-byte address", e);
        }
    }

    /** The four bytes of a strict dotted quad in {@code s[from, to)}; empty when it is not one. */
    private static Optional<byte[]> quad(String s, int from, int to) {
        byte[] b = new byte[4];
        int part = 0;
        int i = from;
        while (part < 4) {
            int start = i;
            int value = 0;
            while (i < to && i - start < 4 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return Optional.empty();
            }
            b[part++] = (byte) value;
            if (part < 4) {
                if (i >= to || s.charAt(i) != '.') {
                    return Optional.empty();
                }
                i++;
            }
        }
        return i == to ? Optional.of(b) : Optional.empty();
    }

    /** The sixteen bytes of an IPv6 literal; empty when {@code s} is not one. */
    private static Optional<byte[]> sixteen(String s) {
        int n = s.length();
        if (n < 2 || n > 45) {
            return Optional.empty();
        }
        int[] groups = new int[8];
        int count = 0;
        int gap = -1;
        int i = 0;
        if (s.startsWith("::")) {
            gap = 0;
            i = 2;
            if (n == 2) {
                return Optional.of(bytes(groups, 0, 0));
            }
        } else if (s.charAt(0) == ':') {
            return Optional.empty();
        }
        while (i < n) {
            if (count == 8) {
                return Optional.empty();
            }
            int dot = s.indexOf('.', i);
            int colon = s.indexOf(':', i);
            if (dot >= 0 && (colon < 0 || dot < colon)) {
                Optional<byte[]> quad = count <= 6 ? quad(s, i, n) : Optional.empty();
                if (quad.isEmpty()) {
                    return Optional.empty();
                }
                byte[] v4 = quad.get();
                groups[count++] = ((v4[0] & 0xff) << 8) | (v4[1] & 0xff);
                groups[count++] = ((v4[2] & 0xff) << 8) | (v4[3] & 0xff);
                i = n;
                break;
            }
            int end = colon < 0 ? n : colon;
            if (end - i < 1 || end - i > 4) {
                return Optional.empty();
            }
            int value = 0;
            for (int k = i; k < end; k++) {
                int digit = Character.digit(s.charAt(k), 16);
                if (digit < 0 || s.charAt(k) > 'f') {
                    return Optional.empty();
                }
                value = (value << 4) | digit;
            }
            groups[count++] = value;
            if (end == n) {
                i = n;
            } else if (end + 1 < n && s.charAt(end + 1) == ':') {
                if (gap >= 0) {
                    return Optional.empty();
                }
                gap = count;
                i = end + 2;
            } else if (end + 1 == n) {
                return Optional.empty();
            } else {
                i = end + 1;
            }
        }
        if (gap < 0 ? count != 8 : count > 7) {
            return Optional.empty();
        }
        return Optional.of(bytes(groups, count, gap));
    }

    private static byte[] bytes(int[] groups, int count, int gap) {
        int[] full = new int[8];
        if (gap < 0) {
            System.arraycopy(groups, 0, full, 0, 8);
        } else {
            System.arraycopy(groups, 0, full, 0, gap);
            int tail = count - gap;
            System.arraycopy(groups, gap, full, 8 - tail, tail);
        }
        byte[] b = new byte[16];
        for (int g = 0; g < 8; g++) {
            b[2 * g] = (byte) (full[g] >>> 8);
            b[2 * g + 1] = (byte) full[g];
        }
        return b;
    }

    /** A decimal of 1 to {@code maxDigits} ASCII digits without a leading zero ("0" itself is fine), or -1. */
    public static int decimal(String text, int maxDigits) {
        if (text.isEmpty() || text.length() > maxDigits || (text.length() > 1 && text.charAt(0) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** The canonical text: dotted quad, or RFC 5952 IPv6 without brackets ({@code ::ffff:a.b.c.d} when mapped). */
    public static String format(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xffff) {
            return "::ffff:" + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(g[i]));
        }
        return text.toString();
    }
}
