package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * One socket the entry binds, and what it serves.
 *
 * @param address the one address to bind (a named entry's synthetic address, the DNS socket's
 *     127.0.0.1); empty: 127.0.0.1 and, when the namespace has it, ::1
 */
record Endpoint(Handoff.Kind kind, int port, Optional<InetAddress> address) {

    Endpoint {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(address, "address");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
        }
    }

    /** On both loopback addresses. */
    Endpoint(Handoff.Kind kind, int port) {
        this(kind, port, Optional.empty());
    }

    @Override
    public String toString() {
        return kind.label() + " "
                + address.map(a -> Handoff.text(new InetSocketAddress(a, port))).orElse(Integer.toString(port));
    }
}
