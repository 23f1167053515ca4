package io.portcullis.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code ./portcullis demo} as a newcomer runs it: it builds its own world in a namespace of its
 * own (so it runs here beside no test world) and prints a table of verdicts.
 */
@NetnsTest
class DemoEndToEndTest {
    /** The start of each row's target and the verdict it must show. */
    private static final Map<String, String> VERDICTS = Map.of(
            "https://nas.lan:8443/", "allow",
            "https://www.example.test/", "allow",
            "http://www.example.test/", "deny",
            "https://192.168.77.11/", "deny not-global-unicast",
            "https://169.254.169.254/", "deny deny-listed",
            "https://mixed.example.test/", "deny not-global-unicast",
            "https://www.example.test:8443/", "deny port-not-allowed",
            "http://127.0.0.1:", "deny owner-root");

    @Test
    void theDemoPrintsTheExpectedVerdictForEveryTarget() throws Exception {
        long start = System.nanoTime();
        Run run = Portcullis.run(List.of("demo"), "");
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertEquals(0, run.exit(), run.toString());
        List<String> lines = run.out().lines().toList();
        int header = lines.indexOf(
                lines.stream().filter(l -> l.startsWith("TARGET")).findFirst().orElseThrow());
        int verdictColumn = lines.get(header).indexOf("VERDICT");
        int whyColumn = lines.get(header).indexOf("WHY");
        List<String> rows = lines.subList(header + 1, header + 1 + VERDICTS.size());
        for (Map.Entry<String, String> expected : VERDICTS.entrySet()) {
            String row = rows.stream()
                    .filter(r -> r.startsWith(expected.getKey()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no row for " + expected.getKey() + ":\n" + run.out()));
            String verdict = row.substring(verdictColumn, whyColumn).strip();
            assertTrue(
                    verdict.equals(expected.getValue()) || verdict.startsWith(expected.getValue() + " "),
                    expected.getKey() + " -> " + verdict + "\n" + run.out());
        }
        assertTrue(rows.stream().filter(r -> r.contains(" allow ")).allMatch(r -> r.contains("HTTP 200")), run.out());
        assertTrue(run.out().contains("8 of 8 connections got the verdict the policy gives them"), run.out());
        assertTrue(seconds < 30, "the demo took " + seconds + " s");
    }

    @Test
    void sigtermWhileTheDemoRunsRemovesItsWorld() throws Exception {
        Path out = Files.createTempFile("demo-", ".out");
        Process process = Portcullis.command(List.of("demo"))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        Set<Long> pids = new HashSet<>();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(out).contains("The sandboxed curl runs")
                    && process.isAlive()
                    && System.nanoTime() < deadline) {
                process.descendants().forEach(p -> pids.add(p.pid()));
                Thread.sleep(20);
            }
            process.descendants().forEach(p -> pids.add(p.pid()));
            assertFalse(worldsOf(pids).isEmpty(), "the demo built no world: " + Files.readString(out));
            process.destroy();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the demo did not stop");
            assertEquals(List.of(), worldsOf(pids), Files.readString(out));
            assertTrue(
                    pids.stream()
                            .noneMatch(pid -> ProcessHandle.of(pid)
                                    .map(ProcessHandle::isAlive)
                                    .orElse(false)),
                    "a process of the demo outlived it");
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }

    /** The world namespaces made by these processes (their names carry the maker's pid). */
    private static List<String> worldsOf(Set<Long> pids) throws Exception {
        Path netns = Path.of("/run/netns");
        if (!Files.isDirectory(netns)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(netns)) {
            return entries.map(p -> p.getFileName().toString())
                    .filter(n -> pids.stream().anyMatch(pid -> n.startsWith("pcw-" + pid + "-")))
                    .toList();
        }
    }

    @Test
    void withoutRootItSaysWhatItNeedsAndExitsNonZero() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of(
                "setpriv",
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                Portcullis.root().resolve("portcullis").toString(),
                "demo"));
        builder.environment().put("PORTCULLIS_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Xshare:auto");
        Run run = Run.of(builder, "", 60);
        assertEquals(1, run.exit(), run.toString());
        assertTrue(run.err().contains("portcullis demo: cannot run here; it needs:"), run.err());
        assertTrue(run.err().contains("  - root: "), run.err());
    }
}
