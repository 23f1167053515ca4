package io.portcullis.relay.cli;

import io.portcullis.log.JsonLog;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.event.Level;
import picocli.CommandLine.Option;

/** The options of the commands that run as a service, {@code relay} and {@code daemon} (SPEC R43). */
final class ServiceOptions {
    private static final Map<String, Level> LEVELS =
            Map.of("error", Level.ERROR, "warn", Level.WARN, "info", Level.INFO, "debug", Level.DEBUG);

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            defaultValue = "info",
            description = "The operational log's level: error, warn, info or debug; default: ${DEFAULT-VALUE}. "
                    + "One JSON object per line on standard error.")
    String logLevel;

    /** Adds a problem for each bad option; puts the log level into effect when it is good. */
    void check(List<String> problems) {
        Level level = LEVELS.get(logLevel.toLowerCase(Locale.ROOT));
        if (level == null) {
            problems.add("--log-level: " + logLevel + " (expected: error, warn, info or debug)");
        } else {
            JsonLog.level(level);
        }
    }
}
