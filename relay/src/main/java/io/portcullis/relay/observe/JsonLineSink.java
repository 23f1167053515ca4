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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each decision as one JSON line to a stream, on a thread of its own so that a slow disk
 * never stalls an event loop. Lines queued together are written with one flush.
 *
 * <p>While lines keep coming, the writer looks for them every {@link #LINGER_NANOS} instead of
 * being woken for each one, so an event loop pays no thread wake-up per connection and a line
 * reaches the stream at most that much later. After a second with nothing to write the writer
 * sleeps until the next line wakes it.
 */
public final class JsonLineSink implements DecisionSink, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JsonLineSink.class);
    private static final ObjectWriter JSON = new ObjectMapper().writerFor(Decision.class);
    private static final Decision END =
            new Decision("end", "end", 0, "end", null, List.of(), null, Decision.DENY, "end", null, 0, 0, 0, 0);

    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int IDLE_LOOKS = 50;

    private final Writer out;
    private final boolean closeStream;
    private final ConcurrentLinkedQueue<Decision> queue = new ConcurrentLinkedQueue<>();
    private final Thread writer;
    private volatile boolean closed;
    private volatile boolean asleep;

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
                Files.newOutputStream(
                        file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE),
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
        wake();
    }

    private void wake() {
        if (asleep) {
            asleep = false;
            LockSupport.unpark(writer);
        }
    }

    private void drain() {
        List<Decision> batch = new ArrayList<>();
        int idle = 0;
        while (!Thread.currentThread().isInterrupted()) {
            for (Decision next = queue.poll(); next != null; next = queue.poll()) {
                batch.add(next);
            }
            if (batch.isEmpty()) {
                idle = Math.min(idle + 1, IDLE_LOOKS);
                waitForLines(idle == IDLE_LOOKS);
                continue;
            }
            idle = 0;
            boolean end = write(batch);
            batch.clear();
            if (end) {
                return;
            }
            LockSupport.parkNanos(LINGER_NANOS);
        }
    }

    /** Parks for the linger, or until {@link #wake()} when idle; a line queued meanwhile is not missed. */
    private void waitForLines(boolean idle) {
        if (!idle) {
            LockSupport.parkNanos(LINGER_NANOS);
            return;
        }
        asleep = true;
        if (queue.isEmpty()) {
            LockSupport.park(this);
        }
        asleep = false;
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
        LockSupport.unpark(writer);
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
