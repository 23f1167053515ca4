package io.portcullis.world;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/** An address prefix such as {@code 93.184.77.0/24}; the network address has no host bits set. */
public record Prefix(InetAddress network, int length) {

    public Prefix {
        Objects.requireNonNull(network, "network");
        int max = network.getAddress().length * 8;
        if (length < 0 || length > max) {
            throw new IllegalArgumentException("length: " + length + " (expected: 0-" + max + ")");
        }
        if (!Arrays.equals(masked(network.getAddress(), length), network.getAddress())) {
            throw new IllegalArgumentException(
                    "network: " + network.getHostAddress() + "/" + length + " (expected: no host bits set)");
        }
    }

    /** Parses {@code address/length}; the address must be a literal. */
    public static Prefix parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("prefix: " + text + " (expected: address/length)");
        }
        try {
            return new Prefix(
                    LiteralAddresses.address(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("prefix: " + text + " (expected: address/length)", e);
        }
    }

    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == network.getAddress().length
                && Arrays.equals(masked(bytes, length), network.getAddress());
    }

    /** The address at {@code offset} from the network address (offset 1 is the world's own side). */
    public InetAddress at(int offset) {
        byte[] bytes = network.getAddress();
        int carry = offset;
        for (int i = bytes.length - 1; i >= 0 && carry != 0; i--) {
            int sum = (bytes[i] & 0xff) + carry;
            bytes[i] = (byte) sum;
            carry = sum >>> 8;
        }
        try {
            InetAddress address = InetAddress.getByAddress(bytes);
            if (!contains(address)) {
                throw new IllegalArgumentException("offset: " + offset + " (expected: inside " + this + ")");
            }
            return address;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    public boolean isIpv6() {
        return network.getAddress().length == 16;
    }

    private static byte[] masked(byte[] bytes, int length) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.clamp(length - i * 8L, 0, 8);
            out[i] &= (byte) (0xff << (8 - keep));
        }
        return out;
    }

    @Override
    public String toString() {
        return network.getHostAddress() + "/" + length;
    }
}
