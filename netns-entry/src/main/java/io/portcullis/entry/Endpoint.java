package io.portcullis.entry;

import io.portcullis.entry.handoff.Handoff;
import java.util.Objects;

/** One loopback port the entry binds, and what it serves. */
record Endpoint(Handoff.Kind kind, int port) {

    Endpoint {
        Objects.requireNonNull(kind, "kind");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
        }
    }

    @Override
    public String toString() {
        return kind.label() + " " + port;
    }
}
