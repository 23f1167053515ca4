package io.portcullis.relay.checks;

import java.time.Duration;
import java.util.Objects;

/**
 * The relay's argument checks, each failing with {@code name: value (expected: ...)}: one place for
 * the port range and the positive sizes and times, whatever package checks them.
 */
public final class Checks {
    private Checks() {}

    public static void port(String name, int port) {
        port(name, port, 1, "1-65535");
    }

    /** A port, or 0 for none (a setting that may be left out). */
    public static void portOrNone(String name, int port) {
        port(name, port, 0, "0-65535, 0 for none");
    }

    private static void port(String name, int port, int min, String expected) {
        if (port < min || port > 65535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: " + expected + ")");
        }
    }

    public static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    public static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    public static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value.toMillis() + " (expected: > 0)");
        }
    }
}
