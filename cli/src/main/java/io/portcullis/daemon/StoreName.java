package io.portcullis.daemon;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Notify;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The name under which one listening socket of a spawn sits in the service manager's descriptor
 * store: {@code <spawn id>/<kind>/<address>/<port>}, such as {@code bot-1/proxy/127.0.0.1/39080}.
 * An IPv6 address is written in full with {@code -} for {@code :}, which the manager does not allow
 * in a name ({@code bot-1/proxy/0-0-0-0-0-0-0-1/39080}). A spawn id (1-128 of {@code A-Z a-z 0-9 .
 * _ -}) never holds {@code /}, so every name reads back as the one socket it was made for, and the
 * longest is well under the manager's 255 characters.
 */
record StoreName(String spawn, Handoff.Socket socket) {
    StoreName {
        Objects.requireNonNull(spawn, "spawn");
        Objects.requireNonNull(socket, "socket");
        if (spawn.isEmpty() || spawn.indexOf('/') >= 0) {
            throw new IllegalArgumentException("spawn: " + spawn + " (expected: a spawn id)");
        }
    }

    /** The name as the store holds it. */
    String text() {
        InetAddress address = socket.address().getAddress();
        String host =
                address instanceof Inet6Address ? address.getHostAddress().replace(':', '-') : address.getHostAddress();
        String name = spawn + "/" + socket.kind().label() + "/" + host + "/" + socket.port();
        Notify.checkName(name);
        return name;
    }

    /** The socket that {@code name} names; empty when it is not a name this class writes. */
    static Optional<StoreName> parse(String name) {
        String[] parts = name.split("/", -1);
        if (parts.length != 4 || parts[0].isEmpty()) {
            return Optional.empty();
        }
        Optional<Handoff.Kind> kind = Arrays.stream(Handoff.Kind.values())
                .filter(one -> one.label().equals(parts[1]))
                .findFirst();
        Optional<InetAddress> address = address(parts[2]);
        Optional<Integer> port = port(parts[3]);
        if (kind.isEmpty() || address.isEmpty() || port.isEmpty()) {
            return Optional.empty();
        }
        StoreName parsed = new StoreName(
                parts[0], new Handoff.Socket(kind.get(), new InetSocketAddress(address.get(), port.get())));
        // One spelling per socket: "127.000.0.1" or a short IPv6 form is no name of ours.
        return parsed.text().equals(name) ? Optional.of(parsed) : Optional.empty();
    }

    /** An address literal, never a name to resolve. */
    private static Optional<InetAddress> address(String text) {
        boolean v6 = text.indexOf('-') >= 0;
        if (text.isEmpty()
                || !text.chars().allMatch(c -> digit(c) || (v6 ? c == '-' || (c >= 'a' && c <= 'f') : c == '.'))) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.ofLiteral(v6 ? text.replace('-', ':') : text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<Integer> port(String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(StoreName::digit)) {
            return Optional.empty();
        }
        int port = Integer.parseInt(text);
        return port >= 1 && port <= 65_535 ? Optional.of(port) : Optional.empty();
    }

    private static boolean digit(int c) {
        return c >= '0' && c <= '9';
    }

    @Override
    public String toString() {
        return text();
    }
}
