package io.portcullis.log;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;

/**
 * The process's operational log: one JSON object per line on standard error ({@link LogLine}),
 * at the level {@link #level(Level)} sets (info until then). Loggers outside Portcullis (Netty,
 * docker-java) write warnings and errors only, whatever the level: their debug lines are about
 * their own insides. Each kind of line is rate-limited ({@link RateLimit}); once a second while
 * lines were dropped, one line per kind says how many.
 */
public final class JsonLog {
    private static final String OURS = "io.portcullis.";
    private static final Duration REPORT_EVERY = Duration.ofSeconds(1);

    private static volatile Level level = Level.INFO;

    /** The command whose person reads the lines, for {@link #forPerson}; empty: JSON for a log. */
    private static volatile Optional<String> person = Optional.empty();

    private static final RateLimit LIMIT = new RateLimit(System::nanoTime);
    /** Whether the thread that says what was dropped runs. */
    private static final AtomicBoolean REPORTING = new AtomicBoolean();

    private JsonLog() {}

    /** Lines at {@code level} and above are written from now on. */
    public static void level(Level level) {
        JsonLog.level = Objects.requireNonNull(level, "level");
    }

    /**
     * From now on lines are for the person at a terminal rather than for a log: {@code command:
     * warning: message}, one plain line each (controls escaped as in JSON), at {@code level} and
     * above. For {@code run}, {@code demo} and {@code check}, whose standard error is a person's.
     */
    public static void forPerson(String command, Level level) {
        JsonLog.person = Optional.of(command);
        level(level);
    }

    /** The line for an event: JSON, or a plain line once {@link #forPerson} was called. */
    static String line(
            Instant time,
            Level level,
            String logger,
            String message,
            @Nullable Throwable thrown,
            List<KeyValuePair> pairs) {
        Optional<String> command = person;
        return command.isEmpty()
                ? LogLine.text(time, level, logger, message, thrown, pairs)
                : LogLine.plain(command.get(), level, message, thrown);
    }

    /** The level in effect. */
    public static Level level() {
        return level;
    }

    static boolean isOurs(String logger) {
        return logger.startsWith(OURS);
    }

    static boolean enabled(boolean ours, Level asked) {
        int threshold = ours ? level.toInt() : Math.max(level.toInt(), Level.WARN.toInt());
        return asked.toInt() >= threshold;
    }

    /**
     * Whether a line of this kind may be written now (SPEC R17); a line that may not is counted,
     * and said later.
     */
    static boolean admit(String logger, Level level, String template) {
        if (LIMIT.admit(new RateLimit.Kind(logger, level, String.valueOf(template)))) {
            return true;
        }
        if (REPORTING.compareAndSet(false, true)) {
            Thread.ofVirtual().name("json-log-dropped").start(JsonLog::report);
        }
        return false;
    }

    /** Says what was dropped once a second, and ends once nothing more was. */
    private static void report() {
        while (true) {
            try {
                Thread.sleep(REPORT_EVERY);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List<RateLimit.Dropped> dropped = LIMIT.drain();
            dropped.forEach(JsonLog::writeDropped);
            if (dropped.isEmpty()) {
                REPORTING.set(false);
                // a line dropped after the drain, before the flag fell, started no thread
                if (!LIMIT.pending() || !REPORTING.compareAndSet(false, true)) {
                    return;
                }
            }
        }
    }

    private static void writeDropped(RateLimit.Dropped dropped) {
        RateLimit.Kind kind = dropped.kind();
        write(line(
                Instant.now(),
                kind.level(),
                kind.logger(),
                dropped.count() + " lines like this were dropped (each kind of line: at most " + RateLimit.BURST
                        + " at once, then " + RateLimit.PER_SECOND + " a second)",
                null,
                List.of(new KeyValuePair("dropped", dropped.count()), new KeyValuePair("template", kind.template()))));
    }

    /** Writes {@code line} and its line end in one write to standard error as it is now. */
    static void write(String line) {
        byte[] bytes = (line + '\n').getBytes(StandardCharsets.UTF_8);
        PrintStream err = System.err;
        err.write(bytes, 0, bytes.length);
        err.flush();
    }
}
