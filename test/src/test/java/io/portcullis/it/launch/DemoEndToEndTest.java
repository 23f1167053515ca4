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
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ./portcullis demo} as a newcomer runs it: it builds its own world in a namespace of its
 * own (so it runs here beside no test world) and prints a table of verdicts.
 */
@NetnsTest
class DemoEndToEndTest {
    /** The start of each row's target and the verdict it must show, in the demo's order. */
    private static final List<List<String>> VERDICTS = List.of(
            List.of("https://nas.lan:8443/", "allow"),
            List.of("https://www.example.test/", "allow"),
            List.of("http://www.example.test/", "deny"),
            List.of("https://192.168.77.11/", "deny not-global-unicast"),
            List.of("https://169.254.169.254/", "deny deny-listed"),
            List.of("https://mixed.example.test/", "deny not-global-unicast"),
            List.of("https://www.example.test:8443/", "deny port-not-allowed"),
            List.of("http://127.0.0.1:", "allow"),
            List.of("http://127.0.0.1:", "deny owner-other-user"),
            List.of("http://127.0.0.1:", "deny owner-"));

    /**
     * Issue 12: the owner check's rows show it at work: the gateway user's own service allowed,
     * another user's refused, root's refused (Docker or not), each with the socket's uid. Run by root
     * itself (uid 65534 stands in for the person) and under sudo (the person's uid).
     */
    @ParameterizedTest(name = "SUDO_UID {0}")
    @CsvSource({"'', 65534, 65533", "1000, 1000, 65534"})
    void theDemoPrintsTheExpectedVerdictForEveryTarget(String sudoUid, int yours, int theirs) throws Exception {
        long start = System.nanoTime();
        ProcessBuilder builder = Portcullis.command(List.of("demo"));
        builder.environment().remove("SUDO_UID");
        if (!sudoUid.isEmpty()) {
            builder.environment().put("SUDO_UID", sudoUid);
        }
        Run run = Run.of(builder, "", 90);
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertEquals(0, run.exit(), run.toString());
        List<String> lines = run.out().lines().toList();
        int header = lines.indexOf(
                lines.stream().filter(l -> l.startsWith("TARGET")).findFirst().orElseThrow());
        int verdictColumn = lines.get(header).indexOf("VERDICT");
        int whyColumn = lines.get(header).indexOf("WHY");
        List<String> rows = lines.subList(header + 1, header + 1 + VERDICTS.size());
        for (int i = 0; i < VERDICTS.size(); i++) {
            String row = rows.get(i);
            List<String> expected = VERDICTS.get(i);
            assertTrue(row.startsWith(expected.get(0)), "row " + i + ": " + row + "\n" + run.out());
            String verdict = row.substring(verdictColumn, whyColumn).strip();
            assertTrue(
                    verdict.equals(expected.get(1)) || verdict.startsWith(expected.get(1)),
                    expected.get(0) + " -> " + verdict + "\n" + run.out());
        }
        assertTrue(rows.stream().filter(r -> r.contains(" allow ")).allMatch(r -> r.contains("HTTP 200")), run.out());
        assertTrue(
                rows.get(7).contains("your own service") && rows.get(7).contains("[uid " + yours + "'s socket, pid "),
                rows.get(7));
        assertTrue(rows.get(8).endsWith("[uid " + theirs + "'s socket]"), rows.get(8));
        String root = rows.get(9).substring(verdictColumn, whyColumn).strip();
        assertTrue(
                (root.equals("deny owner-root") && rows.get(9).contains("root's service"))
                        || (root.equals("deny owner-docker-down")
                                && rows.get(9).contains("Docker is not running (optional")),
                rows.get(9));
        assertTrue(run.out().contains("10 of 10 connections got the verdict the policy gives them"), run.out());
        assertTrue(run.out().contains("Docker is optional"), run.out());
        assertTrue(seconds < 40, "the demo took " + seconds + " s");
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
