package io.portcullis.wire;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The hand-over message (SPEC R4): which socket is which, sent once over the spawn socket with the
 * sockets themselves attached (SCM_RIGHTS), in the order of the entries.
 *
 * <pre>
 * offset   size  value
 *   0       4    ASCII "PCH2"
 *   4      32    the spawn's hand-over key ({@link Key}), as the relay gave it to the wall
 *  36       1    n, the number of sockets: 1-{@value #MAX_SOCKETS}
 *  37     20*n   per socket: kind (1 byte), address length (1 byte: 4 or 16), port (2 bytes,
 *                big-endian), address (16 bytes, an IPv4 address in the first 4, the rest 0)
 * </pre>
 *
 * An IPv4 address is always spelled in 4 bytes: a 16-byte IPv4-mapped one ({@code ::ffff:a.b.c.d}),
 * which the JDK reads as the IPv4 address, is refused, so that each header has one spelling.
 *
 * The relay trusts none of it: it reads the key first, and a message without the spawn's key never
 * takes the spawn socket; it checks every descriptor against the header and both against the
 * spawn's policy. It answers with one line, {@code accepted} or {@code refused bad-handoff: WHY}.
 * This class is the one definition of the format; the entry writes it and the relay reads it.
 */
public record Handoff(Key key, List<Socket> sockets) {

    public static final int MAX_SOCKETS = 250;
    /** How many bytes start every message before its key can be judged: the magic and the key. */
    static final int KEYED = 4 + Key.BYTES;

    static final int HEADER = KEYED + 1;
    static final int ENTRY = 20;
    private static final byte[] MAGIC = "PCH2".getBytes(StandardCharsets.US_ASCII);

    /** 127.0.0.1 and ::1, the addresses the entry binds for the proxy, the forwards and the door. */
    public static final InetAddress IPV4_LOOPBACK = address(new byte[] {127, 0, 0, 1}, 0, 4);

    public static final InetAddress IPV6_LOOPBACK =
            address(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 0, 16);

    /** The relay's answer when it took the sockets. */
    public static final String ACCEPTED = "accepted";

    /** The start of the relay's answer when it refused them; the reason follows. */
    public static final String REFUSED = "refused bad-handoff: ";

    /** What a socket serves inside the namespace. */
    public enum Kind {
        PROXY(1),
        FORWARD(2),
        DOOR(3),
        NAMED(4),
        DNS(5);

        private final int wire;

        Kind(int wire) {
            this.wire = wire;
        }

        public int wire() {
            return wire;
        }

        /** The kind's name as the decision line and the readiness line spell it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Kind> fromWire(int value) {
            return Arrays.stream(values()).filter(kind -> kind.wire == value).findFirst();
        }
    }

    /** One socket: its kind and the address and port it is bound to. */
    public record Socket(Kind kind, InetSocketAddress address) {
        public Socket {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(address, "address");
            if (address.isUnresolved() || address.getPort() < 1) {
                throw new IllegalArgumentException(
                        "address: " + address + " (expected: an address and a port 1-65535)");
            }
        }

        public int port() {
            return address.getPort();
        }

        @Override
        public String toString() {
            return kind.label() + " " + text(address);
        }
    }

    /**
     * A spawn's hand-over key: 32 random bytes that the relay mints when the spawn opens and gives
     * to the wall alone (the ready line, the daemon's answer to {@code POST /spawns}, the embedding
     * API), which passes it to the entry in {@value #ENVIRONMENT}. Only a message that carries it
     * can take the spawn socket, so a process that can reach the socket (the relay's own uid, in a
     * rootless wall) cannot hand its sockets over in the spawn's place. Written as 64 hex digits; a
     * secret until the hand-over, so {@link #toString()} never shows it.
     */
    public static final class Key {
        public static final int BYTES = 32;

        /** The variable in which the entry finds the key; it removes it before the command starts. */
        public static final String ENVIRONMENT = "PORTCULLIS_HANDOFF_KEY";

        private final byte[] bytes;

        private Key(byte[] bytes) {
            this.bytes = bytes;
        }

        /** A fresh key from {@code random}. */
        public static Key mint(SecureRandom random) {
            byte[] bytes = new byte[BYTES];
            random.nextBytes(bytes);
            return new Key(bytes);
        }

        /** The key of {@code bytes} ({@value #BYTES} of them). */
        public static Key of(byte[] bytes) {
            if (bytes.length != BYTES) {
                throw new IllegalArgumentException("key: " + bytes.length + " bytes (expected: " + BYTES + ")");
            }
            return new Key(bytes.clone());
        }

        /**
         * The key written as {@link #text()} writes it (either case); the message of a refusal never
         * repeats what was given, since it may be a key.
         */
        public static Key parse(String text) {
            if (text.length() != 2 * BYTES) {
                throw new IllegalArgumentException(
                        text.length() + " characters (expected: " + 2 * BYTES + " hex digits)");
            }
            if (!text.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 128)) {
                throw new IllegalArgumentException(
                        "a character that is not a hex digit (expected: " + 2 * BYTES + " hex digits)");
            }
            return new Key(HexFormat.of().parseHex(text));
        }

        /** 64 lowercase hex digits: what the wall passes to the entry. */
        public String text() {
            return HexFormat.of().formatHex(bytes);
        }

        /** Whether {@code message} holds this key at {@code at}, in a time that does not depend on where they differ. */
        boolean matches(byte[] message, int at) {
            return message.length >= at + BYTES
                    && MessageDigest.isEqual(Arrays.copyOfRange(message, at, at + BYTES), bytes);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && MessageDigest.isEqual(bytes, key.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        /** Never the key itself: a key may reach a log line through a record's text. */
        @Override
        public String toString() {
            return "Key[hidden]";
        }
    }

    public Handoff {
        Objects.requireNonNull(key, "key");
        sockets = List.copyOf(sockets);
        if (sockets.isEmpty() || sockets.size() > MAX_SOCKETS) {
            throw new IllegalArgumentException("sockets: " + sockets.size() + " (expected: 1-" + MAX_SOCKETS + ")");
        }
    }

    /** The header's bytes. */
    public byte[] encode() {
        byte[] bytes = new byte[HEADER + ENTRY * sockets.size()];
        System.arraycopy(MAGIC, 0, bytes, 0, MAGIC.length);
        System.arraycopy(key.bytes, 0, bytes, MAGIC.length, Key.BYTES);
        bytes[KEYED] = (byte) sockets.size();
        for (int i = 0; i < sockets.size(); i++) {
            Socket socket = sockets.get(i);
            int at = HEADER + ENTRY * i;
            byte[] address = socket.address().getAddress().getAddress();
            bytes[at] = (byte) socket.kind().wire();
            bytes[at + 1] = (byte) address.length;
            bytes[at + 2] = (byte) (socket.port() >>> 8);
            bytes[at + 3] = (byte) socket.port();
            System.arraycopy(address, 0, bytes, at + 4, address.length);
        }
        return bytes;
    }

    /** Whether {@code start} (at least 4 bytes) begins as a hand-over does. */
    static boolean magic(byte[] start) {
        return start.length >= MAGIC.length && Arrays.equals(start, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /**
     * Whether {@code start}, the first {@value #KEYED} bytes of a message or more, carries
     * {@code key}: compared in constant time.
     */
    static boolean keyed(byte[] start, Key key) {
        return magic(start) && key.matches(start, MAGIC.length);
    }

    /**
     * How many bytes the whole header has, once its first {@value #HEADER} bytes are known; empty
     * when they cannot start a header (wrong magic, no sockets or too many).
     */
    public static Optional<Integer> length(byte[] start) {
        if (start.length < HEADER || !magic(start)) {
            return Optional.empty();
        }
        int count = start[KEYED] & 0xff;
        return count < 1 || count > MAX_SOCKETS ? Optional.empty() : Optional.of(HEADER + ENTRY * count);
    }

    /** Reads a whole header; a message that is not exactly one valid header is a {@link Malformed}. */
    public static Handoff decode(byte[] bytes) throws Malformed {
        Optional<Integer> length = length(bytes);
        if (length.isEmpty()) {
            throw new Malformed("the message does not start with a header (expected: " + EXPECTED + ")");
        }
        if (bytes.length != length.get()) {
            throw new Malformed("the message is " + bytes.length + " bytes (expected: " + length.get() + ")");
        }
        List<Socket> sockets = new ArrayList<>();
        for (int at = HEADER; at < bytes.length; at += ENTRY) {
            int index = (at - HEADER) / ENTRY;
            Optional<Kind> kind = Kind.fromWire(bytes[at] & 0xff);
            int size = bytes[at + 1] & 0xff;
            int port = ((bytes[at + 2] & 0xff) << 8) | (bytes[at + 3] & 0xff);
            if (kind.isEmpty()) {
                throw new Malformed("socket " + index + ": kind " + (bytes[at] & 0xff) + " (expected: 1-5)");
            }
            if (size != 4 && size != 16) {
                throw new Malformed("socket " + index + ": address length " + size + " (expected: 4 or 16)");
            }
            if (size == 16 && isIpv4Mapped(bytes, at + 4)) {
                throw new Malformed(
                        "socket " + index + ": an IPv4-mapped address in 16 bytes (expected: IPv4 in 4 bytes)");
            }
            for (int i = at + 4 + size; i < at + ENTRY; i++) {
                if (bytes[i] != 0) {
                    throw new Malformed("socket " + index + ": padding is not zero");
                }
            }
            if (port == 0) {
                throw new Malformed("socket " + index + ": port 0 (expected: 1-65535)");
            }
            sockets.add(new Socket(kind.get(), new InetSocketAddress(address(bytes, at + 4, size), port)));
        }
        return new Handoff(Key.of(Arrays.copyOfRange(bytes, MAGIC.length, KEYED)), sockets);
    }

    /** What a message starts with, as a refusal says it. */
    static final String EXPECTED = "PCH2, the spawn's key and 1-" + MAX_SOCKETS + " sockets";

    private static boolean isIpv4Mapped(byte[] bytes, int at) {
        for (int i = at; i < at + 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[at + 10] == (byte) 0xff && bytes[at + 11] == (byte) 0xff;
    }

    private static InetAddress address(byte[] bytes, int at, int size) {
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(bytes, at, at + size));
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4- or 16-byte address is always an address", e);
        }
    }

    /** {@code 127.0.0.1:39080} or {@code [::1]:39080}. */
    public static String text(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        String host = ip instanceof Inet6Address ? "[" + v6(ip) + "]" : ip.getHostAddress();
        return host + ":" + address.getPort();
    }

    private static String v6(InetAddress ip) {
        return ip.isLoopbackAddress() ? "::1" : ip.getHostAddress();
    }

    /** {@code 127.0.0.1} or {@code ::1}. */
    public static String text(InetAddress address) {
        return address instanceof Inet4Address ? address.getHostAddress() : v6(address);
    }

    /** The header is not one this class writes. */
    public static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        public Malformed(String message) {
            super(message);
        }
    }
}
