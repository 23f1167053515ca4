package io.portcullis.log;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.slf4j.event.Level;

/**
 * The process's operational log: one JSON object per line on standard error ({@link LogLine}),
 * at the level {@link #level(Level)} sets (info until then). Loggers outside Portcullis (Netty,
 * docker-java) write warnings and errors only, whatever the level: their debug lines are about
 * their own insides.
 */
public final class JsonLog {
    private static final String OURS = "io.portcullis.";

    private static volatile Level level = Level.INFO;

    private JsonLog() {}

    /** Lines at {@code level} and above are written from now on. */
    public static void level(Level level) {
        JsonLog.level = Objects.requireNonNull(level, "level");
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

    /** Writes {@code line} and its line end in one write to standard error as it is now. */
    static void write(String line) {
        byte[] bytes = (line + '\n').getBytes(StandardCharsets.UTF_8);
        PrintStream err = System.err;
        err.write(bytes, 0, bytes.length);
        err.flush();
    }
}
