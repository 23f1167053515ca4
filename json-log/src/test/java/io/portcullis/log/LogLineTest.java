package io.portcullis.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;

class LogLineTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant TIME = Instant.parse("2026-11-29T08:00:00.125Z");

    private static JsonNode line(String message, Throwable thrown, List<KeyValuePair> pairs) throws Exception {
        String text = LogLine.text(TIME, Level.WARN, "io.portcullis.relay.Relay", message, thrown, pairs);
        assertFalse(text.contains("\n"), text);
        return JSON.readTree(text);
    }

    @Test
    void theFixedFieldsComeFirstInTheirOrder() throws Exception {
        JsonNode line = line("spawn opened", null, List.of());

        assertEquals(List.of("time", "level", "logger", "message"), fieldNames(line));
        assertEquals("2026-11-29T08:00:00.125Z", line.get("time").asText());
        assertEquals("warn", line.get("level").asText());
        assertEquals("io.portcullis.relay.Relay", line.get("logger").asText());
        assertEquals("spawn opened", line.get("message").asText());
    }

    @Test
    void anExceptionIsOneStringFieldWithItsStackTrace() throws Exception {
        JsonNode line = line("failed", new IllegalStateException("broken", new RuntimeException("cause")), List.of());

        String exception = line.get("exception").asText();
        assertTrue(exception.startsWith("java.lang.IllegalStateException: broken\n\tat "), exception);
        assertTrue(exception.contains("Caused by: java.lang.RuntimeException: cause"), exception);
    }

    @Test
    void keyValuePairsAreFieldsAndNeverHideAFixedOne() throws Exception {
        JsonNode line = line(
                "spawn opened",
                null,
                List.of(
                        new KeyValuePair("spawn", "bot-a"),
                        new KeyValuePair("connections", 3),
                        new KeyValuePair("message", "mine")));

        assertEquals("bot-a", line.get("spawn").asText());
        assertEquals(3, line.get("connections").asInt());
        assertTrue(line.get("connections").isNumber());
        assertEquals("spawn opened", line.get("message").asText());
        assertEquals("mine", line.get("_message").asText());
    }

    @ParameterizedTest(name = "U+{0}")
    @ValueSource(ints = {0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0x2028, 0x2029})
    void aControlCharacterInAMessageIsEscaped(int ch) throws Exception {
        String message = "a" + Character.toString(ch) + "b";
        String text = LogLine.text(TIME, Level.INFO, "x", message, null, List.of());

        assertEquals(-1, text.indexOf(ch), text);
        assertEquals(message, JSON.readTree(text).get("message").asText());
    }

    private static List<String> fieldNames(JsonNode line) {
        return line.properties().stream().map(java.util.Map.Entry::getKey).toList();
    }

    /** Issue 25: run's and demo's warnings were JSON objects on a person's terminal. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "WARN  | the limit is low | portcullis run: warning: the limit is low",
                "ERROR | it broke         | portcullis run: error: it broke",
                "INFO  | started          | portcullis run: started",
            })
    void aPersonReadsOnePlainLine(Level level, String message, String line) {
        assertEquals(line, LogLine.plain("portcullis run", level, message, null));
    }

    @Test
    void aPlainLineObeysNoControl() {
        assertEquals(
                "portcullis run: warning: a\\u000ab\\u001b[31m (java.lang.IllegalStateException: x\\u000ay)",
                LogLine.plain("portcullis run", Level.WARN, "a\nb\u001b[31m", new IllegalStateException("x\ny")));
    }
}
