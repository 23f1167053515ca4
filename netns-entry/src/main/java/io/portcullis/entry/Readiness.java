package io.portcullis.entry;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The ports and addresses the entry holds, announced once as one JSON line when every listener is
 * bound (SPEC R21). Field names are fixed; {@code door} is null when there is none, {@code named}
 * lists the named entries' sockets ({@code 127.77.0.1:5432}), {@code dns} is {@code 127.0.0.1:53}
 * or null.
 */
record Readiness(
        int proxyPort,
        List<Integer> forwards,
        OptionalInt door,
        List<String> named,
        Optional<String> dns,
        List<String> addresses) {

    Readiness {
        forwards = List.copyOf(forwards);
        Objects.requireNonNull(door, "door");
        named = List.copyOf(named);
        Objects.requireNonNull(dns, "dns");
        addresses = List.copyOf(addresses);
    }

    String json() {
        return "{\"proxyPort\":" + proxyPort
                + ",\"forwards\":" + forwards.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"))
                + ",\"door\":" + (door.isPresent() ? String.valueOf(door.getAsInt()) : "null")
                + ",\"named\":" + strings(named)
                + ",\"dns\":" + dns.map(address -> '"' + address + '"').orElse("null")
                + ",\"addresses\":" + strings(addresses)
                + "}";
    }

    /** Addresses need no escaping: digits, dots, colons and brackets. */
    private static String strings(List<String> values) {
        return values.stream().map(value -> '"' + value + '"').collect(Collectors.joining(",", "[", "]"));
    }
}
