package io.portcullis.world;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Address literals without DNS: {@link InetAddress#getByName} resolves names, which a world must never do. */
final class LiteralAddresses {
    private LiteralAddresses() {}

    static InetAddress address(String literal) {
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
            throw new IllegalArgumentException("address: " + literal + " (expected: an IPv4 or IPv6 literal)");
        }
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("address: " + literal + " (expected: an IPv4 or IPv6 literal)", e);
        }
    }

    /** The RFC 5952 text of an address: IPv6 in its shortest form, without a zone. */
    static String text(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (bytes[2 * i] & 0xff) << 8 | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!out.isEmpty() && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /** {@code ip:port}, with the IPv6 text in brackets. */
    static String text(InetSocketAddress address) {
        String ip = text(address.getAddress());
        return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + address.getPort();
    }
}
