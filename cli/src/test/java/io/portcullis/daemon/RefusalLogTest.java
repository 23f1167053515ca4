package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RefusalLogTest {
    private final List<String> lines = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private final RefusalLog log = new RefusalLog(lines::add, 3, Duration.ofSeconds(60), now::get);

    @Test
    void aPeerThatConnectsInALoopIsLoggedOnce() {
        for (int i = 0; i < 10_000; i++) {
            log.refused("net:[1]", "pid " + i + " in network namespace net:[1]");
        }

        assertEquals(List.of("pid 0 in network namespace net:[1]; later refusals of this peer are not logged"), lines);
    }

    @Test
    void eachKindIsLoggedOnceThenNewKindsAreCountedOnceAMinute() {
        for (int kind = 0; kind < 1000; kind++) {
            log.refused("net:[" + kind + "]", "namespace " + kind);
            log.refused("net:[" + kind + "]", "namespace " + kind + " again");
        }
        now.addAndGet(Duration.ofSeconds(59).toNanos());
        log.refused("net:[1000]", "namespace 1000");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        log.refused("net:[1001]", "namespace 1001");

        assertEquals(
                List.of(
                        "namespace 0; later refusals of this peer are not logged",
                        "namespace 1; later refusals of this peer are not logged",
                        "namespace 2; later refusals of this peer are not logged",
                        "1 more control connections refused, from peers beyond the 3 logged one by one (the last:"
                                + " namespace 3)",
                        "1995 more control connections refused, from peers beyond the 3 logged one by one (the last:"
                                + " namespace 1001)"),
                lines);
    }
}
