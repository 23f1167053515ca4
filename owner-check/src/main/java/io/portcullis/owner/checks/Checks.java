package io.portcullis.owner.checks;

/** The owner check's argument checks, each failing with {@code name: value (expected: ...)}. */
public final class Checks {
    private Checks() {}

    public static void port(String name, int port) {
        port(name, port, 1);
    }

    /** A port, where 0 is a value too (a socket's, or a setting's "none"). */
    public static void portOrZero(String name, int port) {
        port(name, port, 0);
    }

    private static void port(String name, int port, int min) {
        if (port < min || port > 65535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: " + min + "-65535)");
        }
    }
}
