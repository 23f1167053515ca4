package io.portcullis.relay.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each decision as one JSON line to a stream, on a thread of its own so that a slow disk
 * never stalls an event loop.
 */
public final class JsonLineSink implements DecisionSink, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JsonLineSink.class);
    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final Writer out;
    private final boolean closeStream;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(Thread.ofPlatform()
            .name("decision-log")
            .daemon(true)
            .factory());

    private JsonLineSink(OutputStream out, boolean closeStream) {
        this.out = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        this.closeStream = closeStream;
    }

    /** Lines to standard error, which stays open after {@link #close()}. */
    public static JsonLineSink toStandardError() {
        return new JsonLineSink(System.err, false);
    }

    /** Lines appended to {@code file}, created when missing (mode 0600 is left to the umask). */
    public static JsonLineSink toFile(Path file) throws IOException {
        return new JsonLineSink(
                Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE),
                true);
    }

    /** The JSON text of one decision, without the line end. */
    public static String json(Decision decision) {
        try {
            return JSON.writeValueAsString(decision);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void accept(Decision decision) {
        try {
            writer.execute(() -> write(decision));
        } catch (RejectedExecutionException e) {
            log.warn("decision after the log closed: {}", json(decision));
        }
    }

    private void write(Decision decision) {
        try {
            out.write(json(decision));
            out.write('\n');
            out.flush();
        } catch (IOException | UncheckedIOException e) {
            log.warn("decision log write failed: {}", e.toString());
        }
    }

    /** Writes what is queued, then closes the file (not standard error). */
    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("decision log did not drain within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (closeStream) {
                out.close();
            } else {
                out.flush();
            }
        } catch (IOException e) {
            log.warn("decision log close failed: {}", e.toString());
        }
    }
}
