package io.portcullis.entry.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The 8 bytes that open every connection from the entry to the relay (SPEC R4):
 *
 * <pre>
 * offset size value
 *   0     4   ASCII "PCL1"
 *   4     1   kind: 1 proxy, 2 forward, 3 door
 *   5     2   the loopback port the client connected to inside the namespace, big-endian
 *   7     1   0
 * </pre>
 *
 * The client's bytes follow unchanged. The relay trusts nothing in it: the program in the
 * namespace can reach the socket too, so the relay checks kind and port against the spawn.
 * This class is the one definition of the format; the entry writes it and the relay reads it.
 */
public record Preamble(Kind kind, int port) {

    public static final int LENGTH = 8;
    private static final byte[] MAGIC = "PCL1".getBytes(StandardCharsets.US_ASCII);

    /** What the client connected to inside the namespace. */
    public enum Kind {
        PROXY(1),
        FORWARD(2),
        DOOR(3);

        private final int wire;

        Kind(int wire) {
            this.wire = wire;
        }

        public int wire() {
            return wire;
        }

        static Kind fromWire(int value) {
            for (Kind kind : values()) {
                if (kind.wire == value) {
                    return kind;
                }
            }
            return null;
        }
    }

    public Preamble {
        Objects.requireNonNull(kind, "kind");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
        }
    }

    /** The 8 bytes on the wire. */
    public byte[] encode() {
        byte[] bytes = new byte[LENGTH];
        System.arraycopy(MAGIC, 0, bytes, 0, MAGIC.length);
        bytes[4] = (byte) kind.wire;
        bytes[5] = (byte) (port >>> 8);
        bytes[6] = (byte) port;
        bytes[7] = 0;
        return bytes;
    }

    /**
     * Reads exactly {@link #LENGTH} bytes from {@code buffer}'s position. Returns null when they are
     * not a valid preamble (wrong magic, unknown kind, port 0, non-zero last byte); the buffer's
     * position is advanced by 8 either way. The caller must have checked that 8 bytes remain.
     */
    public static Preamble decode(ByteBuffer buffer) {
        if (buffer.remaining() < LENGTH) {
            throw new IllegalArgumentException(
                    "buffer: " + buffer.remaining() + " bytes (expected: >= " + LENGTH + ")");
        }
        byte[] bytes = new byte[LENGTH];
        buffer.get(bytes);
        return decode(bytes);
    }

    /** As {@link #decode(ByteBuffer)}, for an array of exactly 8 bytes. */
    public static Preamble decode(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("bytes: " + bytes.length + " (expected: " + LENGTH + ")");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) {
                return null;
            }
        }
        Kind kind = Kind.fromWire(bytes[4] & 0xff);
        int port = ((bytes[5] & 0xff) << 8) | (bytes[6] & 0xff);
        if (kind == null || port == 0 || bytes[7] != 0) {
            return null;
        }
        return new Preamble(kind, port);
    }
}
