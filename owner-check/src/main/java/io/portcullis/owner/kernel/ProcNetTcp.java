package io.portcullis.owner.kernel;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The fallback listener source: {@code net/tcp} and {@code net/tcp6} under a proc root, and
 * {@code net/udp} and {@code net/udp6} for the bound UDP sockets (every row, in any state). These tables
 * show neither V6ONLY nor the bound device: an INET6 listener's V6ONLY is {@link TcpListener.V6Only#UNKNOWN}
 * (the judge counts it both ways) and every listener counts as unbound, so more listeners are
 * judged, never fewer.
 */
final class ProcNetTcp implements ListenerSource {
    private static final String LISTEN = "0A";

    private final ProcRoot root;

    ProcNetTcp(ProcRoot root) {
        this.root = root;
    }

    @Override
    public List<TcpListener> listening(int port) throws IOException {
        List<TcpListener> found = new ArrayList<>();
        found.addAll(parse(Files.readString(root.resolve("net", "tcp")), TcpListener.Family.INET, port));
        found.addAll(parse(Files.readString(root.resolve("net", "tcp6")), TcpListener.Family.INET6, port));
        return found;
    }

    @Override
    public List<TcpListener> udp(int port) throws IOException {
        List<TcpListener> found = new ArrayList<>();
        found.addAll(parse(Files.readString(root.resolve("net", "udp")), TcpListener.Family.INET, port, null));
        found.addAll(parse(Files.readString(root.resolve("net", "udp6")), TcpListener.Family.INET6, port, null));
        return found;
    }

    /** The LISTEN rows on {@code port} of one table; a malformed row is an error, not a skip. */
    static List<TcpListener> parse(String table, TcpListener.Family family, int port) throws IOException {
        return parse(table, family, port, LISTEN);
    }

    /** The rows on {@code port} of one table in {@code state}, or in any state when null. */
    private static List<TcpListener> parse(String table, TcpListener.Family family, int port, @Nullable String state)
            throws IOException {
        List<TcpListener> found = new ArrayList<>();
        String[] lines = table.split("\n");
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length < 10) {
                throw new IOException("tcp table line " + i + ": " + f.length + " fields (expected: >= 10)");
            }
            if (state != null && !f[3].equals(state)) {
                continue;
            }
            TcpListener listener = row(f, family, i);
            if (listener.port() == port) {
                found.add(listener);
            }
        }
        return found;
    }

    private static TcpListener row(String[] f, TcpListener.Family family, int line) throws IOException {
        try {
            int colon = f[1].indexOf(':');
            byte[] raw = address(f[1].substring(0, colon), family == TcpListener.Family.INET ? 4 : 16);
            int port = Integer.parseInt(f[1].substring(colon + 1), 16);
            int uid = Integer.parseInt(f[7]);
            long inode = Long.parseLong(f[9]);
            TcpListener.V6Only v6Only =
                    family == TcpListener.Family.INET ? TcpListener.V6Only.OFF : TcpListener.V6Only.UNKNOWN;
            return InetDiag.Addresses.listener(family, raw, port, uid, inode, v6Only, 0);
        } catch (RuntimeException e) {
            throw new IOException("tcp table line " + line + ": " + e.getMessage(), e);
        }
    }

    /** The kernel prints each 32-bit word of the address in host order. */
    private static byte[] address(String hex, int length) {
        if (hex.length() != length * 2) {
            throw new IllegalArgumentException("address: " + hex + " (expected: " + length * 2 + " hex digits)");
        }
        byte[] raw = new byte[length];
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        for (int word = 0; word < length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int digit = word * 8 + b * 2;
                int value = Integer.parseInt(hex, digit, digit + 2, 16);
                raw[word * 4 + (little ? 3 - b : b)] = (byte) value;
            }
        }
        return raw;
    }
}
