package io.portcullis.relay.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One JSON object being read, at a path, collecting problems instead of stopping at the first.
 *
 * <p>A getter with a fallback returns the fallback when the field is absent, and also when it is
 * wrong; a getter without one returns an {@link Optional}, empty when the field is absent or wrong.
 * Either way a wrong field is already a problem by then, so a reader builds its record only when
 * {@link #clean()}, and the file is refused when any problem was recorded.
 */
final class JsonObject {
    private final List<String> problems;
    private final String path;
    private final JsonNode node;
    private final int problemsBefore;

    private JsonObject(List<String> problems, String path, JsonNode node) {
        this.problems = problems;
        this.path = path;
        this.node = node;
        this.problemsBefore = problems.size();
    }

    /** The object at {@code path}; empty (with a problem) when {@code node} is not an object. */
    static Optional<JsonObject> of(List<String> problems, String path, JsonNode node, String... fields) {
        if (!node.isObject()) {
            problems.add(shown(path) + ": " + show(node) + " (expected: an object)");
            return Optional.empty();
        }
        JsonObject object = new JsonObject(problems, path, node);
        object.only(fields);
        return Optional.of(object);
    }

    private void only(String... fields) {
        Set<String> allowed = new LinkedHashSet<>(List.of(fields));
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                problems.add(at(name) + ": unknown field (expected: one of " + String.join(", ", allowed) + ")");
            }
        }
    }

    /** True when nothing read from this object, or below it, was a problem. */
    boolean clean() {
        return problems.size() == problemsBefore;
    }

    String at(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static String shown(String path) {
        return path.isEmpty() ? "(top level)" : path;
    }

    static String show(JsonNode value) {
        if (value.isMissingNode()) {
            return "missing";
        }
        String text = value.toString();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    /** @param value the wrong value, or a missing node when the field is absent */
    void problem(String path, JsonNode value, String expected) {
        problems.add(path + ": " + show(value) + " (expected: " + expected + ")");
    }

    /** The field is present and not JSON {@code null}. */
    boolean has(String field) {
        return !get(field).isMissingNode() && !get(field).isNull();
    }

    /** The field's value; a missing node when it is absent. */
    JsonNode get(String field) {
        return node.path(field);
    }

    private boolean absent(String field) {
        return get(field).isMissingNode();
    }

    /** A string; empty when absent (a problem when {@code required}) or wrong. */
    Optional<String> text(String field, boolean required) {
        JsonNode value = get(field);
        if (value.isMissingNode()) {
            if (required) {
                problem(at(field), value, "a string");
            }
            return Optional.empty();
        }
        if (!value.isTextual()) {
            problem(at(field), value, "a string");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }

    /** A string, or {@code fallback} when absent or wrong. */
    String text(String field, String fallback) {
        return text(field, false).orElse(fallback);
    }

    /** An integer in {@code [min, max]}; empty when absent or wrong. */
    Optional<Long> integer(String field, long min, long max) {
        JsonNode value = get(field);
        if (value.isMissingNode()) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber()
                || !value.canConvertToLong()
                || value.longValue() < min
                || value.longValue() > max) {
            problem(at(field), value, "an integer " + min + "-" + max);
            return Optional.empty();
        }
        return Optional.of(value.longValue());
    }

    /** An integer in {@code [min, max]}, or {@code fallback} when absent or wrong. */
    long integer(String field, long min, long max, long fallback) {
        return integer(field, min, max).orElse(fallback);
    }

    /** A boolean, or {@code fallback} when absent or wrong. */
    boolean flag(String field, boolean fallback) {
        JsonNode value = get(field);
        if (value.isMissingNode()) {
            return fallback;
        }
        if (!value.isBoolean()) {
            problem(at(field), value, "true or false");
            return fallback;
        }
        return value.booleanValue();
    }

    /** The object at {@code field} whose keys are data, not field names; empty when absent or wrong. */
    Optional<JsonObject> map(String field) {
        JsonNode value = get(field);
        if (value.isMissingNode()) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            problem(at(field), value, "an object");
            return Optional.empty();
        }
        return Optional.of(new JsonObject(problems, at(field), value));
    }

    /** The object at {@code field}; empty when absent (no problem) or wrong (a problem). */
    Optional<JsonObject> object(String field, String... fields) {
        return absent(field) ? Optional.empty() : of(problems, at(field), get(field), fields);
    }

    /**
     * Each element of the array at {@code field}, read by {@code element} with its own path, a
     * wrong one left out; {@code fallback} when absent or not an array.
     */
    <T> List<T> list(String field, List<T> fallback, Function<Element, Optional<T>> element) {
        JsonNode value = get(field);
        if (value.isMissingNode()) {
            return fallback;
        }
        if (!value.isArray()) {
            problem(at(field), value, "an array");
            return fallback;
        }
        List<T> out = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            element.apply(new Element(problems, at(field) + "[" + i + "]", value.get(i)))
                    .ifPresent(out::add);
        }
        return out;
    }

    /** A list of strings, each checked by {@code parse} (which throws with an "(expected: ...)" message). */
    <T> List<T> strings(String field, List<T> fallback, Function<String, T> parse) {
        return list(field, fallback, element -> element.string(parse));
    }

    /** One array element at its path. */
    record Element(List<String> problems, String path, JsonNode node) {
        Optional<JsonObject> object(String... fields) {
            return JsonObject.of(problems, path, node, fields);
        }

        <T> Optional<T> string(Function<String, T> parse) {
            if (!node.isTextual()) {
                problems.add(path + ": " + show(node) + " (expected: a string)");
                return Optional.empty();
            }
            return parse(problems, path, node.textValue(), parse);
        }
    }

    /** Parses a string field with {@code parse}; empty when absent (a problem when {@code required}) or wrong. */
    <T> Optional<T> parsed(String field, boolean required, Function<String, T> parse) {
        return text(field, required).flatMap(text -> parse(problems, at(field), text, parse));
    }

    private static <T> Optional<T> parse(List<String> problems, String path, String text, Function<String, T> parse) {
        try {
            return Optional.of(parse.apply(text));
        } catch (IllegalArgumentException e) {
            problems.add(path + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
