package io.portcullis.launch;

import io.portcullis.log.ControlEscapes;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.DenyCode;
import java.io.PrintStream;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where {@code portcullis run} sends decisions: each refusal as one {@link RefusalLine} to the
 * person's standard error, and every decision to the JSON log when there is one. The lines are
 * written on a thread of their own (a terminal that does not read never stalls an event loop); the
 * same line again within a second (a resolver asking for A and AAAA) is written once, and lines
 * beyond {@link #QUEUED} waiting are dropped and counted.
 */
public final class RunDecisions implements DecisionSink, AutoCloseable {
    static final int QUEUED = 1024;
    private static final long SAME_LINE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RefusalLine format;
    private final PrintStream person;
    private final Optional<DecisionSink> json;
    private final AtomicLong dropped = new AtomicLong();
    private final ThreadPoolExecutor writer;
    /** Confined to the writer thread. */
    private String last = "";

    private long lastNanos;

    /**
     * @param person where the readable lines go (standard error)
     * @param json the JSON decision log; empty: none
     */
    public RunDecisions(RefusalLine format, PrintStream person, Optional<DecisionSink> json) {
        this.format = Objects.requireNonNull(format, "format");
        this.person = Objects.requireNonNull(person, "person");
        this.json = Objects.requireNonNull(json, "json");
        this.writer = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUED),
                task -> Thread.ofPlatform().name("run-refusals").daemon(true).unstarted(task),
                (task, pool) -> dropped.incrementAndGet());
    }

    @Override
    public void accept(Decision decision) {
        json.ifPresent(sink -> sink.accept(decision));
        Optional<String> line;
        try {
            line = format.of(decision);
        } catch (RuntimeException e) {
            line = Optional.of(ControlEscapes.escaped("portcullis: " + decision.verdict() + " "
                    + decision.target().orElse("(no target read)") + ": "
                    + decision.code().map(DenyCode::code).orElse("(no code)")));
        }
        line.ifPresent(text -> writer.execute(() -> write(text)));
    }

    /** A connection reached its target: its line goes to the JSON log now; the person hears of refusals only. */
    @Override
    public void opened(Decision decision) {
        json.ifPresent(sink -> sink.opened(decision));
    }

    private void write(String line) {
        long now = System.nanoTime();
        if (line.equals(last) && now - lastNanos < SAME_LINE_NANOS) {
            return;
        }
        last = line;
        lastNanos = now;
        person.println(line);
        person.flush();
    }

    @Override
    public long dropped() {
        return dropped.get() + json.map(DecisionSink::dropped).orElse(0L);
    }

    @Override
    public void reopen() {
        json.ifPresent(DecisionSink::reopen);
    }

    /** Writes the lines still waiting (for up to 2 s); the JSON log is its owner's to close. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
