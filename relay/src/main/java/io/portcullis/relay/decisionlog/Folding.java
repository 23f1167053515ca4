package io.portcullis.relay.decisionlog;

import io.portcullis.relay.observe.Decision;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bounds one spawn's refusal lines (SPEC R17): in each second of the wall clock, a spawn's first
 * {@code perSecond} lines whose verdict is not {@code allow} are written whole, the rest are
 * counted by code and written as one {@link Summary} once that second is over. Allowed lines are
 * never folded. Used by the log's writer thread only.
 */
final class Folding {
    private final int perSecond;
    private final Map<String, Window> windows = new HashMap<>();
    private long swept = Long.MIN_VALUE;

    /** One spawn's refusals in one second. */
    private static final class Window {
        long second;
        int refusals;
        long folded;
        final Map<String, Long> codes = new TreeMap<>();

        Window(long second) {
            this.second = second;
        }
    }

    Folding(int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond: " + perSecond + " (expected: >= 1)");
        }
        this.perSecond = perSecond;
    }

    /** Adds what {@code decision}, accepted at {@code millis}, puts in the log to {@code out}. */
    void add(Decision decision, long millis, List<Object> out) {
        if (decision.allowed()) {
            out.add(decision);
            return;
        }
        long second = Math.floorDiv(millis, 1000);
        Window window = windows.computeIfAbsent(decision.spawn(), spawn -> new Window(second));
        // A clock stepped back stays in the current window.
        if (second > window.second) {
            summarize(decision.spawn(), window, out);
            window.second = second;
            window.refusals = 0;
        }
        window.refusals++;
        if (window.refusals <= perSecond) {
            out.add(decision);
            return;
        }
        window.folded++;
        // A refusal always has its code (the record's invariant).
        window.codes.merge(decision.code().orElseThrow().code(), 1L, Long::sum);
    }

    /** Adds the summaries of every second over at {@code millis}, and forgets those seconds. */
    void due(long millis, List<Object> out) {
        long second = Math.floorDiv(millis, 1000);
        if (second <= swept) {
            return;
        }
        swept = second;
        for (Iterator<Map.Entry<String, Window>> it = windows.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Window> entry = it.next();
            if (entry.getValue().second < second) {
                summarize(entry.getKey(), entry.getValue(), out);
                it.remove();
            }
        }
    }

    /** Adds every summary still open (the log is closing). */
    void all(List<Object> out) {
        windows.forEach((spawn, window) -> summarize(spawn, window, out));
        windows.clear();
    }

    /** True while some folded lines wait for their summary. */
    boolean pending() {
        for (Window window : windows.values()) {
            if (window.folded > 0) {
                return true;
            }
        }
        return false;
    }

    private static void summarize(String spawn, Window window, List<Object> out) {
        if (window.folded > 0) {
            out.add(new Summary(
                    Instant.ofEpochSecond(window.second).toString(), spawn, Summary.KIND, window.folded, window.codes));
        }
        window.folded = 0;
        window.codes.clear();
    }
}
