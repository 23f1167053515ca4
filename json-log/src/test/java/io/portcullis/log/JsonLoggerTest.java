package io.portcullis.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** The provider as SLF4J finds it, writing to a captured standard error. */
class JsonLoggerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream err;
    private Level level;

    @BeforeEach
    void capture() {
        err = System.err;
        level = JsonLog.level();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(err);
        JsonLog.level(level);
    }

    private List<JsonNode> lines() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    @Test
    void slf4jFindsThisProvider() {
        assertInstanceOf(JsonLogger.class, LoggerFactory.getLogger("io.portcullis.test"));
    }

    @Test
    void eachEventIsOneJsonLineWithAnRfc3339Time() throws Exception {
        Logger log = LoggerFactory.getLogger("io.portcullis.test.Lines");
        log.info("reload refused: {}\n{}", "first problem", "second problem");
        log.warn("failed", new IllegalStateException("broken"));
        log.atInfo().addKeyValue("spawn", "bot-a").log("spawn {}", "opened");

        List<JsonNode> lines = lines();
        assertEquals(3, lines.size(), captured.toString(StandardCharsets.UTF_8));
        for (JsonNode line : lines) {
            String time = line.get("time").asText();
            assertTrue(time.endsWith("Z"), time);
            OffsetDateTime.parse(time);
            assertEquals("io.portcullis.test.Lines", line.get("logger").asText());
        }
        assertEquals(
                "reload refused: first problem\nsecond problem",
                lines.get(0).get("message").asText());
        assertEquals("info", lines.get(0).get("level").asText());
        assertEquals("warn", lines.get(1).get("level").asText());
        assertTrue(lines.get(1).get("exception").asText().startsWith("java.lang.IllegalStateException: broken"));
        assertEquals("spawn opened", lines.get(2).get("message").asText());
        assertEquals("bot-a", lines.get(2).get("spawn").asText());
    }

    /** level | the levels our loggers write (debug twice: plain and fluent) | those another library's write. */
    @ParameterizedTest(name = "{0}: ours {1}, others {2}")
    @CsvSource({
        "ERROR, error,                  error",
        "WARN,  error warn,             error warn",
        "INFO,  error warn info,        error warn",
        "DEBUG, error warn info debug debug, error warn",
    })
    void theLevelSetsWhatIsWrittenAndOtherLibrariesStayAtWarn(Level level, String ours, String others)
            throws Exception {
        JsonLog.level(level);
        for (String name : List.of("io.portcullis.test.Level", "io.netty.test.Level")) {
            Logger log = LoggerFactory.getLogger(name);
            log.error("e");
            log.warn("w");
            log.info("i");
            log.debug("d");
            log.atDebug().log("d");
            log.trace("t");
        }

        List<JsonNode> lines = lines();
        assertEquals(ours, levels(lines, "io.portcullis.test.Level"));
        assertEquals(others, levels(lines, "io.netty.test.Level"));
    }

    /** SPEC R17: a flood of one kind of line is cut to its bucket, and a later line says how many were dropped. */
    @Test
    void aFloodOfOneKindIsCutAndCounted() throws Exception {
        Logger log = LoggerFactory.getLogger("io.portcullis.test.Flood");
        for (int i = 0; i < 1000; i++) {
            log.warn("accept failed: {}", i);
        }
        log.warn("another kind");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<JsonNode> dropped = List.of();
        while (dropped.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            dropped = lines().stream().filter(line -> line.has("dropped")).toList();
        }
        List<JsonNode> lines = lines();
        long written = lines.stream()
                .filter(line -> line.get("message").asText().startsWith("accept failed: "))
                .count();
        assertTrue(written >= RateLimit.BURST && written < RateLimit.BURST + 10, "written: " + written);
        assertEquals(
                1,
                lines.stream()
                        .filter(line -> line.get("message").asText().equals("another kind"))
                        .count());
        assertEquals(1, dropped.size(), captured.toString(StandardCharsets.UTF_8));
        assertEquals(1000 - written, dropped.getFirst().get("dropped").asLong());
        assertEquals("accept failed: {}", dropped.getFirst().get("template").asText());
        assertEquals(
                "io.portcullis.test.Flood", dropped.getFirst().get("logger").asText());
        assertEquals("warn", dropped.getFirst().get("level").asText());
    }

    private static String levels(List<JsonNode> lines, String logger) {
        return String.join(
                " ",
                lines.stream()
                        .filter(line -> line.get("logger").asText().equals(logger))
                        .map(line -> line.get("level").asText())
                        .toList());
    }
}
