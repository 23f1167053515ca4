package io.portcullis.relay.decisionlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.testing.Decisions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decision log on a real file system that fills up: a 64 KiB tmpfs mounted for the test (the
 * tests run as root; elsewhere the test is skipped).
 */
class FullDiskTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TARGET = "x".repeat(300) + ".example:443";

    @TempDir
    Path temp;

    Path disk;

    @BeforeEach
    void mount() throws Exception {
        disk = Files.createDirectory(temp.resolve("disk"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk.toString()), "cannot mount a tmpfs");
    }

    @AfterEach
    void unmount() throws Exception {
        if (!run("umount", disk.toString())) {
            run("umount", "-l", disk.toString());
        }
    }

    private static boolean run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().transferTo(OutputStream.nullOutputStream());
        return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
    }

    private static Decision decision(long id) {
        return Decisions.decision()
                .connection(id)
                .target(TARGET)
                .durationMillis(0)
                .build();
    }

    @Test
    void aFullDiskDropsWholeLinesCountsThemAndTheFileStaysWholeLinesInOrder() throws Exception {
        // Regression: lines were lost without a count, a cut-off line was glued to the next once
        // space came back, and lines held during the failure were written out of order.
        Path file = disk.resolve("decisions.jsonl");
        Metrics metrics = new Metrics();
        JsonLineSink sink = JsonLineSink.toFile(file);
        DecisionSink counted = metrics.counting(sink);
        try {
            for (long id = 1; id <= 10; id++) {
                counted.accept(decision(id));
            }
            awaitHandled(sink, 10);

            Path filler = disk.resolve("filler");
            fill(filler);
            for (long id = 11; id <= 60; id++) {
                counted.accept(decision(id));
            }
            awaitHandled(sink, 60);
            assertTrue(sink.dropped() > 0, "the disk was full, yet nothing was dropped");

            Files.delete(filler);
            for (long id = 61; id <= 70; id++) {
                counted.accept(decision(id));
            }
            awaitHandled(sink, 70);
        } finally {
            sink.close();
        }

        List<String> lines = Files.readAllLines(file);
        long last = 0;
        for (String line : lines) {
            JsonNode node = JSON.readTree(line); // every line is whole JSON
            long id = node.get("connection").asLong();
            assertTrue(id > last, "in order: " + id + " after " + last);
            last = id;
        }
        assertEquals(70, last, "the lines after the disk had room again are there");
        assertEquals(70 - lines.size(), sink.dropped(), "every line is either in the file or counted");
        assertTrue(
                metrics.text(gauges()).contains("portcullis_decision_lines_dropped_total " + sink.dropped() + ".0\n"),
                metrics.text(gauges()));
    }

    /** Writes to {@code filler} until the file system has no room left. */
    private static void fill(Path filler) {
        byte[] chunk = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (int i = 0; i < 64; i++) {
                out.write(chunk);
                out.flush();
            }
            throw new AssertionError("a 64 KiB tmpfs took 256 KiB");
        } catch (IOException full) {
            // no space left: the point
        }
    }

    private static void awaitHandled(JsonLineSink sink, long count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (sink.written() + sink.dropped() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + count + " lines handled after 5 s: written " + sink.written()
                        + ", dropped " + sink.dropped());
            }
            Thread.sleep(5);
        }
    }

    private static Metrics.Gauges gauges() {
        return new Metrics.Gauges() {
            @Override
            public Map<String, Integer> openConnections() {
                return Map.of();
            }

            @Override
            public long generation() {
                return 1;
            }
        };
    }
}
