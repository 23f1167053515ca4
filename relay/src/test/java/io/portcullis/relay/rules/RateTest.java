package io.portcullis.relay.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RateTest {
    private static final long SECOND = 1_000_000_000L;

    /**
     * Each case: rate, burst, and takes as (time in ms, expected) pairs, taken in order on one bucket.
     */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("a full burst, then none", 200, 3, new long[][] {{0, 1}, {0, 1}, {0, 1}, {0, 0}}),
                Arguments.of("one token back after 1/rate", 200, 1, new long[][] {{0, 1}, {4, 0}, {6, 1}, {6, 0}}),
                Arguments.of("never more than the burst", 1000, 2, new long[][] {
                    {0, 1}, {10_000, 1}, {10_000, 1}, {10_000, 0}
                }),
                Arguments.of("a clock going back gives nothing", 1, 1, new long[][] {{5_000, 1}, {0, 0}, {5_000, 0}}),
                Arguments.of("slow rate", 1, 1, new long[][] {{0, 1}, {999, 0}, {1000, 1}}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void takes(String name, int rate, int burst, long[][] takes) {
        Rate bucket = new Rate();
        for (int i = 0; i < takes.length; i++) {
            boolean expected = takes[i][1] == 1;
            assertEquals(
                    expected,
                    bucket.tryTake(takes[i][0] * 1_000_000L, rate, burst),
                    "take " + i + " at " + takes[i][0] + " ms");
        }
    }

    @Test
    void aLowerBurstAfterAReloadHoldsAtOnce() {
        Rate bucket = new Rate();
        assertEquals(true, bucket.tryTake(0, 1000, 100));
        // 99 tokens are left; a reload to a burst of 2 caps them at the next take.
        assertEquals(true, bucket.tryTake(SECOND, 1000, 2));
        assertEquals(true, bucket.tryTake(SECOND, 1000, 2));
        assertEquals(false, bucket.tryTake(SECOND, 1000, 2));
    }

    @Test
    void refusesANonPositiveRate() {
        assertThrows(IllegalArgumentException.class, () -> new Rate().tryTake(0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Rate().tryTake(0, 1, 0));
    }
}
