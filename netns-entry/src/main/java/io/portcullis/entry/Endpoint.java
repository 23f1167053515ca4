package io.portcullis.entry;

import io.portcullis.entry.wire.Preamble;
import java.util.Locale;
import java.util.Objects;

/** One loopback port the entry listens on, and the kind its connections announce to the relay. */
record Endpoint(Preamble.Kind kind, int port) {

    Endpoint {
        Objects.requireNonNull(kind, "kind");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
        }
    }

    Preamble preamble() {
        return new Preamble(kind, port);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + " " + port;
    }
}
