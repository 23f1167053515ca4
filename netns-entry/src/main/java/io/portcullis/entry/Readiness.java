package io.portcullis.entry;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The ports and addresses the entry holds, announced once as one JSON line when every listener is
 * bound (SPEC R21). Field names are fixed; {@code door} is null when there is none.
 */
record Readiness(int proxyPort, List<Integer> forwards, OptionalInt door, List<String> addresses) {

    Readiness {
        forwards = List.copyOf(forwards);
        Objects.requireNonNull(door, "door");
        addresses = List.copyOf(addresses);
    }

    String json() {
        return "{\"proxyPort\":" + proxyPort
                + ",\"forwards\":" + forwards.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"))
                + ",\"door\":" + (door.isPresent() ? String.valueOf(door.getAsInt()) : "null")
                + ",\"addresses\":"
                + addresses.stream().map(address -> '"' + address + '"').collect(Collectors.joining(",", "[", "]"))
                + "}";
    }
}
