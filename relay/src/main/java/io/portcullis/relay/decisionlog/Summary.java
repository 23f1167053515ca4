package io.portcullis.relay.decisionlog;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The line that stands for one spawn's refusals folded in one second (SPEC R17). The component
 * names are the JSON field names.
 *
 * @param time the start of the second, ISO-8601 UTC
 * @param spawn the spawn's id
 * @param kind always {@code summary}, so a reader tells it from a decision line
 * @param folded how many refusal lines it stands for
 * @param codes how many of them had each code, by code
 */
record Summary(String time, String spawn, String kind, long folded, Map<String, Long> codes) {
    static final String KIND = "summary";

    Summary {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(spawn, "spawn");
        if (!KIND.equals(kind)) {
            throw new IllegalArgumentException("kind: " + kind + " (expected: summary)");
        }
        if (folded < 1) {
            throw new IllegalArgumentException("folded: " + folded + " (expected: >= 1)");
        }
        codes = new TreeMap<>(codes);
    }
}
