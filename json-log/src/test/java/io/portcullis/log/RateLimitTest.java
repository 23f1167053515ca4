package io.portcullis.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;

/** SPEC R17: each kind of operational line has its own bucket; what it drops is counted. */
class RateLimitTest {
    private static final RateLimit.Kind SPIN =
            new RateLimit.Kind("io.portcullis.Spin", Level.WARN, "accept failed: {}");
    private static final RateLimit.Kind OTHER =
            new RateLimit.Kind("io.portcullis.Spin", Level.WARN, "reload refused: {}");

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final RateLimit limit = new RateLimit(now::get);

    private int offer(RateLimit.Kind kind, int lines) {
        int admitted = 0;
        for (int i = 0; i < lines; i++) {
            admitted += limit.admit(kind) ? 1 : 0;
        }
        return admitted;
    }

    /** first lines at once | then, after this many ms | this many more | of which written. */
    @ParameterizedTest(name = "{0} lines, {1} ms, {2} lines -> {3} written")
    @CsvSource({
        "10,    0,  50, 40",
        "50,    0,   1,  0",
        "50,  499,   1,  0",
        "50,  500,   2,  1",
        "50, 1000,   5,  2",
        "50, 60000, 100, 50",
    })
    void aKindWritesItsBurstThenTwoLinesASecond(int first, long millis, int then, int written) {
        assertEquals(Math.min(first, RateLimit.BURST), offer(SPIN, first));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        assertEquals(written, offer(SPIN, then));
        long dropped = Math.max(0, first - RateLimit.BURST) + (then - written);
        assertEquals(dropped == 0 ? List.of() : List.of(new RateLimit.Dropped(SPIN, dropped)), limit.drain());
    }

    @Test
    void aDrainSaysEachCountOnce() {
        offer(SPIN, 80);
        assertTrue(limit.pending());
        assertEquals(List.of(new RateLimit.Dropped(SPIN, 30)), limit.drain());
        assertFalse(limit.pending());
        assertEquals(List.of(), limit.drain());
    }

    @Test
    void oneKindsFloodLeavesAnotherKindAlone() {
        offer(SPIN, 10_000);
        assertEquals(RateLimit.BURST, offer(OTHER, RateLimit.BURST));
        assertEquals(List.of(new RateLimit.Dropped(SPIN, 10_000 - RateLimit.BURST)), limit.drain());
    }

    @Test
    void kindsPastTheLastFollowedShareOneBucket() {
        for (int i = 0; i < RateLimit.MAX_KINDS; i++) {
            assertTrue(limit.admit(new RateLimit.Kind("io.portcullis.Many", Level.INFO, "line " + i)));
        }
        for (int i = 0; i < RateLimit.BURST + 5; i++) {
            limit.admit(new RateLimit.Kind("io.portcullis.Many", Level.INFO, "more " + i));
        }
        assertEquals(List.of(new RateLimit.Dropped(RateLimit.OTHERS, 5)), limit.drain());
    }
}
