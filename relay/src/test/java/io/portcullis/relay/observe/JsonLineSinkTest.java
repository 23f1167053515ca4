package io.portcullis.relay.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonLineSinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Decision decision(long id) {
        return new Decision(
                "2026-11-29T08:00:00Z",
                "studio",
                id,
                "proxy",
                "nas.lan:8443",
                List.of("192.168.1.5"),
                "192.168.1.5:8443",
                "allow",
                null,
                null,
                10,
                20,
                5,
                3);
    }

    @Test
    void theFieldNamesAreFixed() throws Exception {
        JsonNode line = JSON.readTree(JsonLineSink.json(decision(1)));

        List<String> names = new ArrayList<>();
        line.fieldNames().forEachRemaining(names::add);
        assertEquals(
                List.of(
                        "time",
                        "spawn",
                        "connection",
                        "kind",
                        "target",
                        "resolved",
                        "dialed",
                        "verdict",
                        "code",
                        "owner",
                        "bytesUp",
                        "bytesDown",
                        "durationMillis",
                        "generation"),
                names);
        assertEquals("192.168.1.5:8443", line.get("dialed").asText());
        assertEquals(true, line.get("code").isNull());
        assertEquals(3, line.get("generation").asLong());
    }

    @Test
    void everyLineQueuedBeforeCloseIsInTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        JsonLineSink sink = JsonLineSink.toFile(file);

        for (long id = 1; id <= 1000; id++) {
            sink.accept(decision(id));
        }
        sink.close();

        List<String> lines = Files.readAllLines(file);
        assertEquals(1000, lines.size());
        for (int i = 0; i < lines.size(); i++) {
            assertEquals(i + 1, JSON.readTree(lines.get(i)).get("connection").asLong());
        }
    }

    @Test
    void aLineAfterTheWriterFellAsleepIsWrittenWithoutClose(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        try (JsonLineSink sink = JsonLineSink.toFile(file)) {
            sink.accept(decision(1));
            awaitLines(file, 1);
            Thread.sleep(1500); // past the writer's idle second: it parks until the next line
            sink.accept(decision(2));

            awaitLines(file, 2);
        }
    }

    private static void awaitLines(Path file, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Files.readAllLines(file).size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        file + ": fewer than " + count + " lines after 5 s: " + Files.readAllLines(file));
            }
            Thread.sleep(10);
        }
    }

    @ParameterizedTest(name = "{0}/{1} -> refused")
    @CsvSource(
            nullValues = "null",
            value = {"allow, not-listed", "deny, null", "error, null", "maybe, not-listed"})
    void aVerdictAndCodeThatDisagreeAreRefused(String verdict, String code) {
        assertThrows(
                IllegalArgumentException.class,
                () -> new Decision("t", "s", 1, "proxy", null, List.of(), null, verdict, code, null, 0, 0, 0, 1));
    }
}
