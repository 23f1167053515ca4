package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The descriptor limit as prlimit(2) gives it, against what the kernel shows in /proc. */
class DescriptorLimitTest {

    @Test
    void theLimitIsWhatProcShowsAndRaisingMakesTheSoftOneTheHardOne() throws Exception {
        Posix.DescriptorLimit read = Posix.descriptorLimit();
        assertEquals(proc(), read.soft() + " " + read.hard());

        Posix.DescriptorLimit raised = Posix.raiseDescriptorLimit();

        assertEquals(read.hard(), raised.soft());
        assertEquals(read.hard(), raised.hard());
        assertEquals(proc(), raised.soft() + " " + raised.hard());
    }

    private static String proc() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String[] words =
                        line.substring("Max open files".length()).trim().split("\\s+");
                return words[0] + " " + words[1];
            }
        }
        throw new AssertionError("no Max open files in /proc/self/limits");
    }
}
