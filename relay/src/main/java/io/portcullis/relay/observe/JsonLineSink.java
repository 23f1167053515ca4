package io.portcullis.relay.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each decision as one JSON line to a stream, on a thread of its own so that a slow disk
 * never stalls an event loop. Lines queued together are written with one flush.
 */
public final class JsonLineSink implements DecisionSink, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JsonLineSink.class);
    private static final ObjectWriter JSON = new ObjectMapper().writerFor(Decision.class);
    private static final Decision END = new Decision("end", "end", 0, "end", null, List.of(), null,
            Decision.DENY, "end", null, 0, 0, 0, 0);

    private final Writer out;
    private final boolean closeStream;
    private final LinkedBlockingQueue<Decision> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;

    private JsonLineSink(OutputStream out, boolean closeStream) {
        this.out = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        this.closeStream = closeStream;
        this.writer = Thread.ofPlatform().name("decision-log").daemon(true).start(this::drain);
    }

    /** Lines to standard error, which stays open after {@link #close()}. */
    public static JsonLineSink toStandardError() {
        return new JsonLineSink(System.err, false);
    }

    /** Lines appended to {@code file}, created when missing. */
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
        if (closed) {
            log.warn("decision after the log closed: {}", json(decision));
            return;
        }
        queue.add(decision);
    }

    private void drain() {
        List<Decision> batch = new ArrayList<>();
        while (true) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch);
            boolean end = write(batch);
            batch.clear();
            if (end) {
                return;
            }
        }
    }

    /** Writes the batch up to the end marker; true when the marker was in it. */
    private boolean write(List<Decision> batch) {
        try {
            for (Decision decision : batch) {
                if (decision == END) {
                    out.flush();
                    return true;
                }
                out.write(json(decision));
                out.write('\n');
            }
            out.flush();
        } catch (IOException | UncheckedIOException e) {
            log.warn("decision log write failed: {}", e.toString());
        }
        return false;
    }

    /** Writes what is queued, then closes the file (not standard error). */
    @Override
    public void close() {
        closed = true;
        queue.add(END);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(5));
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
