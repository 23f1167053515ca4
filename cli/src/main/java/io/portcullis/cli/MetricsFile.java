package io.portcullis.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a metrics file periodically and once more at the end, for a node exporter's textfile
 * collector. Each write goes to a file beside it, then is moved over it, so a reader never sees
 * half a file.
 */
final class MetricsFile implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsFile.class);

    private final Path file;
    private final Supplier<String> text;
    private final ScheduledExecutorService timer = new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().name("metrics-file").daemon(true).factory());

    MetricsFile(Path file, Supplier<String> text, Duration every) {
        this.file = file;
        this.text = text;
        timer.scheduleWithFixedDelay(this::write, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    synchronized void write() {
        Path partial = file.resolveSibling("." + file.getFileName() + ".partial");
        try {
            Files.writeString(partial, text.get(), StandardCharsets.UTF_8);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            log.warn("metrics file {}: {}", file, e.toString());
        }
    }

    /** Stops the timer and writes the last figures. */
    @Override
    public void close() {
        timer.shutdownNow();
        write();
    }
}
