package io.portcullis.relay.policy;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the records, each failing with {@code name: value (expected: ...)}. */
final class Checks {
    private Checks() {}

    static void port(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: 1-65535)");
        }
    }

    static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value.toMillis() + " (expected: > 0)");
        }
    }
}
