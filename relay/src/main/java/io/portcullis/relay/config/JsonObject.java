package io.portcullis.relay.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One JSON object being read, at a path, collecting problems instead of stopping at the first.
 * Every getter returns null (or the default) when the value is missing or wrong; the problem is
 * already recorded by then.
 */
final class JsonObject {
    private final List<String> problems;
    private final String path;
    private final JsonNode node;

    private JsonObject(List<String> problems, String path, JsonNode node) {
        this.problems = problems;
        this.path = path;
        this.node = node;
    }

    /** The object at {@code path}, or null (with a problem) when {@code node} is not an object. */
    static JsonObject of(List<String> problems, String path, JsonNode node, String... fields) {
        if (node == null || !node.isObject()) {
            problems.add(shown(path) + ": " + show(node) + " (expected: an object)");
            return null;
        }
        JsonObject object = new JsonObject(problems, path, node);
        object.only(fields);
        return object;
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

    String at(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static String shown(String path) {
        return path.isEmpty() ? "(top level)" : path;
    }

    static String show(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "missing";
        }
        String text = value.toString();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    void problem(String path, JsonNode value, String expected) {
        problems.add(path + ": " + show(value) + " (expected: " + expected + ")");
    }

    boolean has(String field) {
        return node.has(field) && !node.get(field).isNull();
    }

    JsonNode get(String field) {
        return node.get(field);
    }

    /** A string, or {@code fallback} when absent; null when wrong. */
    String text(String field, String fallback, boolean required) {
        JsonNode value = node.get(field);
        if (value == null) {
            if (required) {
                problem(at(field), null, "a string");
            }
            return fallback;
        }
        if (!value.isTextual()) {
            problem(at(field), value, "a string");
            return null;
        }
        return value.textValue();
    }

    /** An integer in {@code [min, max]}, or {@code fallback} when absent; null when wrong. */
    Long integer(String field, long min, long max, Long fallback) {
        JsonNode value = node.get(field);
        if (value == null) {
            return fallback;
        }
        if (!value.isIntegralNumber()
                || !value.canConvertToLong()
                || value.longValue() < min
                || value.longValue() > max) {
            problem(at(field), value, "an integer " + min + "-" + max);
            return null;
        }
        return value.longValue();
    }

    /** A boolean, or {@code fallback} when absent; null when wrong. */
    Boolean flag(String field, boolean fallback) {
        JsonNode value = node.get(field);
        if (value == null) {
            return fallback;
        }
        if (!value.isBoolean()) {
            problem(at(field), value, "true or false");
            return null;
        }
        return value.booleanValue();
    }

    /** The object at {@code field} whose keys are data, not field names; null when absent or wrong. */
    JsonObject map(String field) {
        JsonNode value = node.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            problem(at(field), value, "an object");
            return null;
        }
        return new JsonObject(problems, at(field), value);
    }

    /** The object at {@code field}, or null when absent (no problem) or wrong (a problem). */
    JsonObject object(String field, String... fields) {
        JsonNode value = node.get(field);
        return value == null ? null : of(problems, at(field), value, fields);
    }

    /**
     * Each element of the array at {@code field}, read by {@code element} with its own path;
     * {@code fallback} when absent, null when not an array.
     */
    <T> List<T> list(String field, List<T> fallback, Function<Element, T> element) {
        JsonNode value = node.get(field);
        if (value == null) {
            return fallback;
        }
        if (!value.isArray()) {
            problem(at(field), value, "an array");
            return null;
        }
        List<T> out = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            T read = element.apply(new Element(problems, at(field) + "[" + i + "]", value.get(i)));
            if (read != null) {
                out.add(read);
            }
        }
        return out;
    }

    /** A list of strings, each checked by {@code parse} (which throws with an "(expected: ...)" message). */
    <T> List<T> strings(String field, List<T> fallback, Function<String, T> parse) {
        return list(field, fallback, element -> element.string(parse));
    }

    /** One array element at its path. */
    record Element(List<String> problems, String path, JsonNode node) {
        JsonObject object(String... fields) {
            return JsonObject.of(problems, path, node, fields);
        }

        <T> T string(Function<String, T> parse) {
            if (!node.isTextual()) {
                problems.add(path + ": " + show(node) + " (expected: a string)");
                return null;
            }
            try {
                return parse.apply(node.textValue());
            } catch (IllegalArgumentException e) {
                problems.add(path + ": " + e.getMessage());
                return null;
            }
        }
    }

    /** Parses a string field with {@code parse}; null (with a problem) when it fails. */
    <T> T parsed(String field, boolean required, Function<String, T> parse) {
        String text = text(field, null, required);
        if (text == null) {
            return null;
        }
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            problems.add(at(field) + ": " + e.getMessage());
            return null;
        }
    }
}
