package io.portcullis.relay.policy;

import io.portcullis.relay.address.Ip;
import io.portcullis.relay.address.Literals;
import io.portcullis.relay.address.Strings;
import io.portcullis.relay.checks.Checks;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code host:port} in canonical form (SPEC R7), the same for policy entries and requests, so a
 * listed entry matches exactly one spelling.
 *
 * <p>Canonical: a name in lowercase ASCII after UTS #46 nontransitional processing to ASCII
 * (IDNA2008: {@code faß} is {@code xn--fa-hia}, never {@code fass}), without a trailing dot; an
 * IPv4 literal as a strict dotted quad; an IPv6 literal in RFC 5952 form, written in brackets.
 *
 * @param host the canonical host, without brackets
 * @param port 1-65535
 * @param literal the address when the host is a literal; empty for a name
 */
public record Target(String host, int port, Optional<InetAddress> literal) {

    /** Longest name (RFC 1035, without the trailing dot). */
    public static final int MAX_NAME = 253;

    /** What a valid target looks like, for messages. */
    public static final String EXPECTED = "host:port";

    private static final int MAX_TEXT = 1024;

    public Target {
        Objects.requireNonNull(host, "host");
        Checks.port("port", port);
        Objects.requireNonNull(literal, "literal");
        if (literal.isPresent() && !host.equals(Literals.format(literal.get()))) {
            throw new IllegalArgumentException(
                    "host: " + Strings.quote(host) + " (expected: the canonical form of " + literal.get() + ")");
        }
    }

    /**
     * Parses a target as a wall or a client wrote it.
     *
     * @throws IllegalArgumentException when it is not a valid target, with a message of the form
     *     {@code "a@b:443" (expected: host:port)}; the detail after "expected" says what was wrong
     */
    public static Target parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.length() > MAX_TEXT) {
            throw bad(text, "host:port of at most " + MAX_NAME + " bytes of name");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean printableAscii = c > 0x20 && c < 0x7f;
            if (!printableAscii
                    && (c < 0x80
                            || Character.isISOControl(c)
                            || Character.isWhitespace(c)
                            || Character.isSpaceChar(c))) {
                throw bad(text, "host:port without whitespace or control bytes");
            }
            if (c == '@' || c == '%' || c == '/' || c == '\\' || c == '?' || c == '#') {
                throw bad(text, "host:port without userinfo, zone, path or escape");
            }
            if (c == '*') {
                throw bad(text, "host:port naming one exact host, no wildcard");
            }
        }
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw bad(text, EXPECTED);
        }
        int port = port(text.substring(colon + 1));
        if (port < 0) {
            throw bad(text, "host:port with a port 1-65535 in decimal");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[")) {
            if (!host.endsWith("]")) {
                throw bad(text, "[ipv6]:port");
            }
            Optional<Inet6Address> v6 = Literals.ipv6(host.substring(1, host.length() - 1));
            if (v6.isEmpty()) {
                throw bad(text, "[ipv6]:port with a valid IPv6 address");
            }
            return new Target(Literals.format(v6.get()), port, Optional.of(v6.get()));
        }
        if (host.indexOf(':') >= 0 || host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
            throw bad(text, "[ipv6]:port, an IPv6 literal in brackets");
        }
        if (host.isEmpty()) {
            throw bad(text, EXPECTED);
        }
        if (looksNumeric(host)) {
            Optional<Inet4Address> v4 = Literals.ipv4(host);
            if (v4.isEmpty()) {
                throw bad(text, "host:port with IPv4 as four decimal parts 0-255, no leading zeros");
            }
            return new Target(Literals.format(v4.get()), port, Optional.of(v4.get()));
        }
        return new Target(name(text, host), port, Optional.empty());
    }

    /** A last label of digits or {@code 0x}: an IPv4 spelling, which must then be the strict form. */
    private static boolean looksNumeric(String host) {
        int end = host.length();
        if (end > 0 && host.charAt(end - 1) == '.') {
            end--;
        }
        int start = host.lastIndexOf('.', end - 1) + 1;
        if (start >= end) {
            return false;
        }
        if (end - start > 1 && host.charAt(start) == '0' && (host.charAt(start + 1) | 0x20) == 'x') {
            return true;
        }
        for (int i = start; i < end; i++) {
            if (host.charAt(i) < '0' || host.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static String name(String text, String host) {
        String ascii = Idna.toAscii(text, host);
        if (ascii.endsWith(".")) {
            ascii = ascii.substring(0, ascii.length() - 1);
        }
        ascii = ascii.toLowerCase(Locale.ROOT);
        if (ascii.isEmpty() || ascii.length() > MAX_NAME) {
            throw bad(text, "host:port with a name of 1-" + MAX_NAME + " bytes");
        }
        if (looksNumeric(ascii)) {
            throw bad(text, "host:port with IPv4 as four decimal parts 0-255, no leading zeros");
        }
        int labelStart = 0;
        for (int i = 0; i <= ascii.length(); i++) {
            char c = i == ascii.length() ? '.' : ascii.charAt(i);
            if (c == '.') {
                int length = i - labelStart;
                if (length == 0 || length > 63 || ascii.charAt(labelStart) == '-' || ascii.charAt(i - 1) == '-') {
                    throw bad(text, "host:port with DNS labels of 1-63 letters, digits or hyphens");
                }
                labelStart = i + 1;
            } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                throw bad(text, "host:port with a name of letters, digits, hyphens and dots");
            }
        }
        return ascii;
    }

    private static int port(String text) {
        int value = Literals.decimal(text, 5);
        return value >= 1 && value <= 65535 ? value : -1;
    }

    static IllegalArgumentException bad(String text, String expected) {
        return new Malformed(Strings.quote(text) + " (expected: " + expected + ")");
    }

    /** A refused target: an expected outcome on the request path, so it carries no stack trace. */
    private static final class Malformed extends IllegalArgumentException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** The canonical text of an address: a dotted quad, or RFC 5952 IPv6 without brackets. */
    public static String text(InetAddress address) {
        return Literals.format(address);
    }

    /**
     * The canonical text of a socket address, as the decision line writes it: {@code ip:port}, an
     * IPv6 address in RFC 5952 form and in brackets ({@code [2001:db8::1]:443}).
     */
    public static String text(InetSocketAddress address) {
        String host = text(address.getAddress());
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** True for a name; false for an address literal. */
    public boolean isName() {
        return literal.isEmpty();
    }

    /**
     * True when the host is {@code localhost} or a loopback literal ({@code 127.0.0.0/8},
     * {@code ::1}, or either as IPv4-mapped): the entry is then also a forward (SPEC R1).
     */
    public boolean isLoopback() {
        if (literal.isEmpty()) {
            return host.equals("localhost");
        }
        Ip ip = Ip.of(literal.get()).judgedAs();
        return ip.v4() ? (ip.lo() >>> 24) == 127 : ip.hi() == 0 && ip.lo() == 1;
    }

    /** {@code host:port}, with the IPv6 host in brackets. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
