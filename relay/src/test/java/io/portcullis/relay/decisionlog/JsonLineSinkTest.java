package io.portcullis.relay.decisionlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Decisions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonLineSinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Decision decision(long id) {
        return decision(id, "nas.lan:8443");
    }

    private static Decision decision(long id, String target) {
        return Decisions.decision()
                .connection(id)
                .target(target)
                .resolved("192.168.1.5")
                .dialed("192.168.1.5", 8443)
                .bytes(10, 20)
                .durationMillis(5)
                .generation(3)
                .build();
    }

    private static Decision refusal(String spawn, long id, String code) {
        return Decisions.decision()
                .spawn(spawn)
                .connection(id)
                .target("x.example:80")
                .verdict("deny", code)
                .durationMillis(0)
                .build();
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
                        "open",
                        "target",
                        "resolved",
                        "dialed",
                        "verdict",
                        "code",
                        "reason",
                        "owner",
                        "bytesUp",
                        "bytesDown",
                        "durationMillis",
                        "timings",
                        "generation",
                        "revision",
                        "end"),
                names);
        assertEquals("192.168.1.5:8443", line.get("dialed").asText());
        assertEquals(true, line.get("code").isNull());
        assertEquals(3, line.get("generation").asLong());
        List<String> timings = new ArrayList<>();
        line.get("timings").fieldNames().forEachRemaining(timings::add);
        assertEquals(List.of("dnsMicros", "ownerMicros", "connectMicros"), timings);
    }

    /**
     * Issue 25 #7 (decision D81): a connection that reached its target has its decision line
     * written then, open, and an end line under the same connection id when it ends; one that never
     * did has its one decision line when it ends.
     */
    @Test
    void aTunnelHasItsDecisionLineWhenItOpensAndAnEndLineWhenItCloses(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        Decisions tunnel = Decisions.decision()
                .connection(7)
                .target("nas.lan:8443")
                .open(true)
                .reason("listed entry nas.lan:8443 (https)")
                .timings(812, -1, 1204)
                .time(Instant.parse("2026-11-29T08:00:00Z"));
        try (JsonLineSink sink = JsonLineSink.toFile(file)) {
            sink.opened(tunnel.durationMillis(3).build());
            awaitLines(file, 1);
            sink.accept(refusal("studio", 8, "not-listed"));
            sink.accept(tunnel.bytes(100_000, 2_000_000)
                    .durationMillis(61_000)
                    .end(Decision.End.CLIENT_RESET)
                    .build());
            awaitLines(file, 3);
        }

        List<JsonNode> lines = new ArrayList<>();
        for (String text : Files.readAllLines(file)) {
            lines.add(JSON.readTree(text));
        }
        JsonNode opened = lines.get(0);
        assertEquals("proxy", opened.get("kind").asText());
        assertTrue(opened.get("open").asBoolean());
        assertEquals(0, opened.get("bytesUp").asLong());
        assertEquals(3, opened.get("durationMillis").asLong());
        assertEquals("listed entry nas.lan:8443 (https)", opened.get("reason").asText());
        assertEquals(812, opened.get("timings").get("dnsMicros").asLong());
        assertTrue(opened.get("timings").get("ownerMicros").isNull());
        assertEquals(1204, opened.get("timings").get("connectMicros").asLong());
        assertEquals(false, lines.get(1).get("open").asBoolean(), "a refusal is written whole when it ends");
        assertEquals("deny", lines.get(1).get("verdict").asText());
        JsonNode ended = lines.get(2);
        List<String> names = new ArrayList<>();
        ended.fieldNames().forEachRemaining(names::add);
        assertEquals(
                List.of(
                        "time",
                        "spawn",
                        "connection",
                        "kind",
                        "target",
                        "verdict",
                        "code",
                        "reason",
                        "bytesUp",
                        "bytesDown",
                        "durationMillis",
                        "end"),
                names);
        assertEquals("end", ended.get("kind").asText());
        assertEquals(7, ended.get("connection").asLong());
        assertEquals("2026-11-29T08:01:01Z", ended.get("time").asText(), "when it ended");
        assertEquals(100_000, ended.get("bytesUp").asLong());
        assertEquals(2_000_000, ended.get("bytesDown").asLong());
        assertEquals(61_000, ended.get("durationMillis").asLong());
        assertEquals("client-reset", ended.get("end").asText());
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

    /** A link at the log's name is never followed, at start or on reopen: it could point anywhere. */
    @Test
    void aLinkAtTheLogsNameIsRefused(@TempDir Path dir) throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "keep\n");
        Path log = Files.createSymbolicLink(dir.resolve("decisions.log"), victim);

        IOException refused = assertThrows(IOException.class, () -> JsonLineSink.toFile(log));

        assertTrue(refused.getMessage().contains("decisions.log"), refused.getMessage());
        assertEquals("keep\n", Files.readString(victim));
    }

    @Test
    void theFileIsCreatedWithoutReadAccessForOthers(@TempDir Path dir) throws Exception {
        // Regression: the log was created 0644 although its lines carry argv and cwd.
        Path file = dir.resolve("decisions.jsonl");
        JsonLineSink.toFile(file).close();

        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        assertTrue(LineFile.MODE.containsAll(mode), "at most rw-r-----: " + PosixFilePermissions.toString(mode));
        assertTrue(mode.contains(PosixFilePermission.OWNER_WRITE), PosixFilePermissions.toString(mode));
    }

    @ParameterizedTest(name = "U+{0} -> escaped")
    @ValueSource(strings = {"0000", "000a", "000d", "001f", "007f", "0080", "0085", "009f", "2028", "2029"})
    void everyControlCharacterInAFieldIsEscaped(String hex) throws Exception {
        // Regression: C1 controls (U+0085) and U+2028/U+2029 were written raw; a line reader split the record.
        char control = (char) Integer.parseInt(hex, 16);
        String target = "a" + control + "b.example:443";

        String line = JsonLineSink.json(decision(1, target));

        assertEquals(-1, line.indexOf(control), line);
        assertEquals(1, line.split("[\\n\\r\\u000b\\u000c\\u001c-\\u001e\\u0085\\u2028\\u2029]", -1).length);
        assertEquals(target, JSON.readTree(line).get("target").asText());
    }

    @Test
    void textThatIsNoControlIsWrittenAsItIs() {
        String line = JsonLineSink.json(decision(1, "faß-é.example:443"));
        assertTrue(line.contains("faß-é.example:443"), line);
    }

    @Test
    void oneSpawnsRefusalsBeyondAHundredASecondAreFoldedIntoOneSummaryLine(@TempDir Path dir) throws Exception {
        // Regression: a flood of refused connections wrote one line each, without bound.
        AtomicLong now = new AtomicLong(10_000);
        Path file = dir.resolve("decisions.jsonl");
        try (JsonLineSink sink = JsonLineSink.toFile(file, () -> Instant.ofEpochMilli(now.get()))) {
            for (int id = 1; id <= 130; id++) {
                sink.accept(refusal("flood", id, id % 3 == 0 ? "port-not-allowed" : "not-listed"));
            }
            for (int id = 131; id <= 135; id++) {
                sink.accept(decision(id));
            }
            for (int id = 136; id <= 138; id++) {
                sink.accept(refusal("calm", id, "not-listed"));
            }
            awaitWritten(sink, 100 + 5 + 3);
            Thread.sleep(100);
            assertEquals(108, sink.written(), "no summary before its second is over");

            now.set(11_000);
            awaitWritten(sink, 109);
            sink.accept(refusal("flood", 139, "not-listed"));
            awaitWritten(sink, 110);
        }

        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            lines.add(JSON.readTree(line));
        }
        assertEquals(110, lines.size());
        JsonNode summary = lines.get(108);
        assertEquals(JSON.readTree("""
                        {"time": "1970-01-01T00:00:10Z", "spawn": "flood", "kind": "summary", "folded": 30,
                         "codes": {"not-listed": 20, "port-not-allowed": 10}}"""), summary);
        assertEquals(
                100,
                lines.stream()
                        .filter(l -> l.path("spawn").asText().equals("flood")
                                && l.path("verdict").asText().equals("deny")
                                && l.get("connection").asLong() <= 130)
                        .count());
        assertEquals(139, lines.get(109).get("connection").asLong(), "a new second starts a new count");
    }

    @Test
    void reopenWritesTheNextLinesToAFileOfTheSameName(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        Path rotated = dir.resolve("decisions.jsonl.1");
        try (JsonLineSink sink = JsonLineSink.toFile(file)) {
            sink.accept(decision(1));
            awaitLines(file, 1);
            Files.move(file, rotated);

            sink.reopen();
            sink.accept(decision(2));

            awaitLines(file, 1);
            assertEquals(
                    2,
                    JSON.readTree(Files.readAllLines(file).get(0))
                            .get("connection")
                            .asLong());
            assertEquals(1, Files.readAllLines(rotated).size());
            assertTrue(LineFile.MODE.containsAll(Files.getPosixFilePermissions(file)));
        }
    }

    /** Issue 26 class 9: a reopen checks what is at the name as the start does, and keeps the old file when refused. */
    @Test
    void aReopenThatFindsAnotherUidsFileKeepsWritingToTheOldOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        Path rotated = dir.resolve("decisions.jsonl.1");
        try (JsonLineSink sink = JsonLineSink.toFile(file)) {
            sink.accept(decision(1));
            awaitLines(file, 1);
            Files.move(file, rotated);
            Files.writeString(file, "theirs\n");
            Files.setAttribute(file, "unix:uid", 65534);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));

            sink.reopen();
            sink.accept(decision(2));

            awaitLines(rotated, 2);
            assertEquals("theirs\n", Files.readString(file));
        }
    }

    @Test
    void pastTheQueuesBoundWhileTheWriterIsStuckDecisionsAreDroppedAndCounted() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {
                throw new UnsupportedOperationException("whole lines only");
            }

            @Override
            public synchronized void write(byte[] bytes, int offset, int length) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                written.write(bytes, offset, length);
            }
        };
        JsonLineSink sink = JsonLineSink.to(LineOutput.of(stuck), "a stuck stream");
        sink.accept(decision(0));
        assertTrue(entered.await(5, TimeUnit.SECONDS), "the writer never wrote");
        for (int i = 1; i <= JsonLineSink.MAX_QUEUED + 1000; i++) {
            sink.accept(decision(i));
        }
        assertEquals(1000, sink.dropped(), "what the queue could not hold");

        release.countDown();
        awaitWritten(sink, JsonLineSink.MAX_QUEUED + 1001);
        sink.close();

        long lines = written.toString(StandardCharsets.UTF_8).lines().count();
        assertEquals(JsonLineSink.MAX_QUEUED + 1, lines);
        assertEquals(1000, sink.dropped());
    }

    @Test
    void aBatchThatFailsInAnUnforeseenWayIsDroppedAndTheWriterGoesOn() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        AtomicInteger writes = new AtomicInteger();
        LineOutput failingOnce = new LineOutput() {
            @Override
            public Written write(Lines lines) {
                if (writes.incrementAndGet() == 1) {
                    throw new IllegalStateException("a bug in the output");
                }
                written.add(new String(lines.bytes(), 0, lines.length(), StandardCharsets.UTF_8));
                return new Written(lines.count(), Optional.empty());
            }

            @Override
            public void reopen() {}

            @Override
            public void close() {}
        };
        JsonLineSink sink = JsonLineSink.to(failingOnce, "a failing output");
        sink.accept(decision(1));
        awaitWritten(sink, 1);
        assertEquals(1, sink.dropped());

        sink.accept(decision(2));
        awaitWritten(sink, 2);
        sink.close();

        assertEquals(1, written.size(), written.toString());
        assertEquals(2, JSON.readTree(written.getFirst()).get("connection").asLong());
    }

    private static void awaitWritten(JsonLineSink sink, long count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sink.written() + sink.dropped() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + count + " lines handled after 30 s: written " + sink.written()
                        + ", dropped " + sink.dropped());
            }
            Thread.sleep(5);
        }
    }

    /** The file's lines; none while it does not exist (a reopened file appears with its first line). */
    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static void awaitLines(Path file, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lines(file).size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(file + ": fewer than " + count + " lines after 5 s: " + lines(file));
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
                () -> Decisions.decision().verdict(verdict, code).build());
    }
}
