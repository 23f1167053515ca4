package io.portcullis.log;

import java.io.Serial;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NormalizedParameters;
import org.slf4j.spi.LoggingEventAware;

/**
 * A logger that writes each event as one line of {@link JsonLog}. Events of the fluent API
 * ({@code log.atInfo().addKeyValue("spawn", id).log(...)}) keep their key-value pairs as fields.
 * Every line is admitted by its kind's rate limit first ({@link JsonLog#admit}).
 */
final class JsonLogger extends LegacyAbstractLogger implements LoggingEventAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final boolean ours;

    JsonLogger(String name) {
        this.name = name;
        this.ours = JsonLog.isOurs(name);
    }

    @Override
    public boolean isTraceEnabled() {
        return JsonLog.enabled(ours, Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return JsonLog.enabled(ours, Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return JsonLog.enabled(ours, Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return JsonLog.enabled(ours, Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return JsonLog.enabled(ours, Level.ERROR);
    }

    /** None: the caller is not looked up (SLF4J's contract allows null). */
    @Override
    protected @Nullable String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
            Level level,
            @Nullable Marker marker,
            String pattern,
            Object @Nullable [] arguments,
            @Nullable Throwable thrown) {
        if (JsonLog.admit(name, level, pattern)) {
            write(level, MessageFormatter.basicArrayFormat(pattern, arguments), thrown, List.of());
        }
    }

    @Override
    public void log(LoggingEvent event) {
        if (!JsonLog.enabled(ours, event.getLevel()) || !JsonLog.admit(name, event.getLevel(), event.getMessage())) {
            return;
        }
        NormalizedParameters normalized = NormalizedParameters.normalize(event);
        List<KeyValuePair> pairs = event.getKeyValuePairs() == null ? List.of() : event.getKeyValuePairs();
        write(
                event.getLevel(),
                MessageFormatter.basicArrayFormat(normalized.getMessage(), normalized.getArguments()),
                normalized.getThrowable(),
                pairs);
    }

    private void write(Level level, String message, @Nullable Throwable thrown, List<KeyValuePair> pairs) {
        JsonLog.write(JsonLog.line(Instant.now(), level, name, message, thrown, pairs));
    }
}
