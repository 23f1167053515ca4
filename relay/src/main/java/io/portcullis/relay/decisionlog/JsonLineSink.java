package io.portcullis.relay.decisionlog;

import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each decision as one JSON line, on a thread of its own so that a slow disk never stalls
 * an event loop. Lines queued together are written with one write.
 *
 * <p>While lines keep coming, the writer looks for them every {@link #LINGER_NANOS} instead of
 * being woken for each one, so an event loop pays no thread wake-up per connection and a line
 * reaches the file at most that much later. After a second with nothing to write the writer
 * sleeps until the next line wakes it.
 *
 * <p>SPEC R17: one spawn's refusals beyond {@link #REFUSALS_PER_SECOND} a second are folded into
 * one summary line ({@link Folding}); every control character is escaped ({@link LogJson}); the
 * file holds whole lines only ({@link LineFile}). Lines that could not be written (a full disk)
 * are dropped, not held: they are counted ({@link #dropped()}), and the log says so once when
 * writing fails and once, with the count, when it works again.
 *
 * <p>What waits for the writer is bounded too: past {@link #MAX_QUEUED} lines (a file that blocks,
 * a reader of standard error that stopped reading) each new decision is dropped and counted, and
 * the writer says how many once it catches up. A line that cannot be made, or a batch that fails
 * in any other way, is dropped and counted; the writer itself keeps going.
 */
public final class JsonLineSink implements DecisionSink, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JsonLineSink.class);

    /** One spawn's refusal lines written whole per second; the rest are folded. */
    public static final int REFUSALS_PER_SECOND = 100;

    /** Decisions queued for the writer at most; more are dropped and counted. */
    static final int MAX_QUEUED = 65_536;

    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int IDLE_LOOKS = 50;

    /** What the writer takes from the queue: a line, or the end marker {@link #close} queues. */
    private sealed interface Queued {}

    /** A decision line (folded if need be) or an end line, queued at {@code millis}. */
    private record Line(Object line, long millis) implements Queued {}

    private enum End implements Queued {
        END
    }

    private final LineOutput out;
    private final String name;
    private final InstantSource clock;
    private final Folding folding = new Folding(REFUSALS_PER_SECOND);
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Decisions dropped because the queue was full, since the start; any thread adds. */
    private final LongAdder overflowed = new LongAdder();

    private final Lines bytes = new Lines();
    private final Thread writer;
    private volatile boolean closed;
    private volatile boolean asleep;
    private volatile boolean reopen;
    private volatile long dropped;
    private volatile long written;
    private long droppedInEpisode;
    /** How many of {@link #overflowed} the writer has warned of; the writer's thread only. */
    private long overflowSaid;

    private boolean failing;

    private JsonLineSink(LineOutput out, String name, InstantSource clock) {
        this.out = out;
        this.name = name;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.writer = Thread.ofPlatform().name("decision-log").daemon(true).start(this::drain);
    }

    /** Lines to standard error, which stays open after {@link #close()}. */
    public static JsonLineSink toStandardError() {
        return new JsonLineSink(LineOutput.of(System.err), "standard error", InstantSource.system());
    }

    /**
     * Why the relay, running as this process's uid, could not write its decision lines to {@code
     * file}, found without making or changing anything (for {@code portcullis check --host}); empty
     * when it could. The same rules as {@link #toFile}: a folder that exists and may be written, or
     * a regular file of this uid with mode at most 0640 and one name.
     */
    public static Optional<String> problem(Path file) {
        return LineFile.problem(file);
    }

    /** Lines appended to {@code file}, created 0640 when missing. */
    public static JsonLineSink toFile(Path file) throws IOException {
        return toFile(file, InstantSource.system());
    }

    /** As {@link #toFile(Path)}, with the clock that sets the folding's seconds. */
    static JsonLineSink toFile(Path file, InstantSource clock) throws IOException {
        return new JsonLineSink(LineFile.open(file), file.toString(), clock);
    }

    /** Lines to {@code out}, named {@code name} in the relay's own log (a test's seam). */
    static JsonLineSink to(LineOutput out, String name) {
        return new JsonLineSink(out, name, InstantSource.system());
    }

    /** The JSON text of one decision, without the line end. */
    public static String json(Decision decision) {
        return LogJson.text(decision);
    }

    /**
     * A connection ended: its decision line, or its end line when the decision line was written
     * open ({@link #opened}).
     */
    @Override
    public void accept(Decision decision) {
        enqueue(decision.open() ? Ended.of(decision) : decision);
    }

    /** A connection reached its target: its decision line, open, now. */
    @Override
    public void opened(Decision decision) {
        enqueue(decision);
    }

    private void enqueue(Object line) {
        if (closed) {
            log.warn("decision after the log closed: {}", LogJson.text(line));
            return;
        }
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            overflowed.increment();
            return;
        }
        queue.add(new Line(line, clock.millis()));
        wake();
    }

    /** Lines that could not be written (the file failed, the writer fell behind), since the start. */
    @Override
    public long dropped() {
        return dropped + overflowed.sum();
    }

    /** Lines written, summaries included, since the start. */
    long written() {
        return written;
    }

    /**
     * Opens the file again by its name, for log rotation: lines not yet written when this is
     * called go to the new file. When the file cannot be opened, lines keep going to the old one.
     */
    @Override
    public void reopen() {
        reopen = true;
        asleep = false;
        LockSupport.unpark(writer);
    }

    private void wake() {
        if (asleep) {
            asleep = false;
            LockSupport.unpark(writer);
        }
    }

    private void drain() {
        List<Queued> batch = new ArrayList<>();
        int idle = 0;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                reopenIfAsked();
                for (Queued next = queue.poll(); next != null; next = queue.poll()) {
                    if (next != End.END) {
                        queued.decrementAndGet();
                    }
                    batch.add(next);
                }
                if (batch.isEmpty()) {
                    sayOverflow();
                    writeDueSummaries();
                    idle = Math.min(idle + 1, IDLE_LOOKS);
                    waitForLines(idle == IDLE_LOOKS && !folding.pending());
                    continue;
                }
                idle = 0;
                boolean end = write(batch);
                batch.clear();
                if (end) {
                    return;
                }
                LockSupport.parkNanos(LINGER_NANOS);
            } catch (RuntimeException | Error e) {
                // Whatever failed, the writer goes on: a thread that ended would leave every later line queued.
                long lost = batch.stream().filter(queued -> queued != End.END).count();
                dropped += lost;
                log.warn("decision log {}: {} lines were dropped: {}", name, lost, e.toString());
                boolean end = batch.contains(End.END);
                batch.clear();
                if (end) {
                    return;
                }
            }
        }
    }

    private void reopenIfAsked() {
        if (!reopen) {
            return;
        }
        reopen = false;
        try {
            out.reopen();
        } catch (IOException e) {
            log.warn("decision log {}: reopen failed, lines keep going to the old file: {}", name, e.toString());
        }
    }

    /** Parks for the linger, or until {@link #wake()} when idle; a line queued meanwhile is not missed. */
    private void waitForLines(boolean idle) {
        if (!idle) {
            LockSupport.parkNanos(LINGER_NANOS);
            return;
        }
        asleep = true;
        if (queue.isEmpty() && !reopen) {
            LockSupport.park(this);
        }
        asleep = false;
    }

    private void writeDueSummaries() {
        List<Object> lines = new ArrayList<>();
        folding.due(clock.millis(), lines);
        if (!lines.isEmpty()) {
            writeLines(lines);
        }
    }

    /** Once the writer has caught up (nothing queued), how many decisions were dropped because it had fallen behind. */
    private void sayOverflow() {
        long overflow = overflowed.sum();
        if (overflow != overflowSaid) {
            log.warn(
                    "decision log {}: the writer fell behind; {} lines were dropped ({} since the start)",
                    name,
                    overflow - overflowSaid,
                    overflow);
            overflowSaid = overflow;
        }
    }

    /** Writes the batch up to the end marker; true when the marker was in it. */
    private boolean write(List<Queued> batch) {
        List<Object> lines = new ArrayList<>(batch.size());
        boolean end = false;
        for (Queued queued : batch) {
            if (!(queued instanceof Line line)) {
                end = true;
                break;
            }
            folding.due(line.millis(), lines);
            if (line.line() instanceof Decision decision) {
                folding.add(decision, line.millis(), lines);
            } else {
                lines.add(line.line());
            }
        }
        if (end) {
            folding.all(lines);
        } else {
            folding.due(clock.millis(), lines);
        }
        writeLines(lines);
        return end;
    }

    private void writeLines(List<Object> lines) {
        bytes.clear();
        int unwritable = 0;
        for (Object line : lines) {
            try {
                bytes.add(LogJson.line(line));
            } catch (RuntimeException e) {
                unwritable++;
                log.warn("decision log {}: a line could not be made: {}", name, e.toString());
            }
        }
        LineOutput.Written result;
        try {
            result = bytes.count() == 0 ? new LineOutput.Written(0, Optional.empty()) : out.write(bytes);
        } catch (RuntimeException e) {
            // Counted once, as a failed write: none of these lines is known to be in the file.
            result = new LineOutput.Written(0, Optional.of(new IOException("the output failed: " + e, e)));
        }
        written += result.lines();
        long lost = bytes.count() - result.lines() + unwritable;
        dropped += lost;
        account(result.error(), lost);
    }

    /** One warning when writing starts to fail, one with the count when it works again. */
    private void account(Optional<IOException> error, long lost) {
        if (error.isPresent()) {
            droppedInEpisode += lost;
            if (!failing) {
                failing = true;
                log.warn(
                        "decision log {}: write failed, dropping lines until it works again: {}",
                        name,
                        error.get().toString());
            }
            return;
        }
        if (failing) {
            failing = false;
            log.warn("decision log {}: writing again; {} lines were dropped", name, droppedInEpisode);
            droppedInEpisode = 0;
        }
    }

    /** Writes what is queued, then closes the file (not standard error). */
    @Override
    public void close() {
        closed = true;
        queue.add(End.END);
        LockSupport.unpark(writer);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failing) {
            log.warn("decision log {}: closed while failing; {} lines were dropped", name, droppedInEpisode);
        }
        try {
            out.close();
        } catch (IOException e) {
            log.warn("decision log {}: close failed: {}", name, e.toString());
        }
    }
}
