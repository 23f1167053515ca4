package io.portcullis.log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;

/**
 * The text of one operational log line: {@code time} (RFC 3339, UTC, {@code Z}), {@code level}
 * (lower case), {@code logger}, {@code message}, then {@code exception} (its stack trace as text)
 * when there is one, then the event's key-value pairs as fields of their own. A pair named like a
 * fixed field is written with a leading underscore, so it never hides one.
 */
final class LogLine {
    static final Set<String> FIELDS = Set.of("time", "level", "logger", "message", "exception");

    private static final JsonFactory JSON = new JsonFactory();
    private static final ControlEscapes ESCAPES = new ControlEscapes();

    private LogLine() {}

    static String text(
            Instant time,
            Level level,
            String logger,
            @Nullable String message,
            @Nullable Throwable thrown,
            List<KeyValuePair> pairs) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.setCharacterEscapes(ESCAPES);
            json.writeStartObject();
            json.writeStringField("time", time.toString());
            json.writeStringField("level", level.name().toLowerCase(Locale.ROOT));
            json.writeStringField("logger", logger);
            json.writeStringField("message", message == null ? "" : message);
            if (thrown != null) {
                json.writeStringField("exception", stackTrace(thrown));
            }
            for (KeyValuePair pair : pairs) {
                json.writeFieldName(FIELDS.contains(pair.key) ? "_" + pair.key : pair.key);
                value(json, pair.value);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * The plain line a person reads: {@code command: warning: message}, the exception's own line
     * after it when there is one; controls escaped as in the JSON line, so a line stays one line.
     */
    static String plain(String command, Level level, String message, @Nullable Throwable thrown) {
        String what = switch (level) {
            case ERROR -> "error: ";
            case WARN -> "warning: ";
            default -> "";
        };
        String text = (message == null ? "" : message) + (thrown == null ? "" : " (" + thrown + ")");
        return ControlEscapes.escaped(command + ": " + what + text);
    }

    private static void value(JsonGenerator json, Object value) throws IOException {
        switch (value) {
            case null -> json.writeNull();
            case Boolean b -> json.writeBoolean(b);
            case Integer i -> json.writeNumber(i);
            case Long l -> json.writeNumber(l);
            default -> json.writeString(value.toString());
        }
    }

    private static String stackTrace(Throwable thrown) {
        StringWriter trace = new StringWriter();
        try (PrintWriter out = new PrintWriter(trace)) {
            thrown.printStackTrace(out);
        }
        return trace.toString().stripTrailing();
    }
}
