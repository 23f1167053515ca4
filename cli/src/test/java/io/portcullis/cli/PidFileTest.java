package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 25: the daemon's pid file, for logrotate's postrotate, which nothing wrote before. */
class PidFileTest {
    @TempDir
    Path dir;

    @Test
    void itIsWrittenWholeWithThisPidAndRemovedOnlyWhileItNamesThisProcess() throws Exception {
        Path file = dir.resolve("daemon.pid");
        Files.writeString(file, "1\n");

        PidFile.write(file);

        assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(file));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(file), left.toList(), "no temporary file is left beside it");
        }
        PidFile.remove(file);
        assertFalse(Files.exists(file));

        Files.writeString(file, "1\n");
        PidFile.remove(file);
        assertTrue(Files.exists(file), "another process's pid file is left alone");
    }

    @Test
    void aFileNamingARunningProcessIsRefusedAndOneNamingThisOrNoProcessIsNot() throws Exception {
        Path file = dir.resolve("daemon.pid");
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(file, sleeper.pid() + "\n");
            List<String> problems = new ArrayList<>();
            PidFile.check(file, problems);
            assertEquals(1, problems.size(), problems.toString());
            assertTrue(
                    problems.getFirst().contains("names pid " + sleeper.pid() + ", which is running (")
                            && problems.getFirst().contains("sleep 60)"),
                    problems.getFirst());

            for (String mine : List.of(Long.toString(ProcessHandle.current().pid()), "garbage", "")) {
                Files.writeString(file, mine);
                problems.clear();
                PidFile.check(file, problems);
                assertEquals(List.of(), problems, mine);
            }
        } finally {
            sleeper.destroyForcibly();
            sleeper.waitFor();
        }
        Files.writeString(file, sleeper.pid() + "\n");
        List<String> problems = new ArrayList<>();
        PidFile.check(file, problems);
        assertEquals(List.of(), problems, "a pid that no longer runs: the file is stale and replaced");
    }

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {"'123\n' | 123", "'  42  ' | 42", "'0' | ''", "'-1' | ''", "'12a' | ''", "'99999999999' | ''"})
    void itNamesAPidOnlyWhenItHoldsOne(String text, String pid) throws Exception {
        Path file = Files.writeString(dir.resolve("p.pid"), text.translateEscapes());
        assertEquals(pid.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(pid)), PidFile.holder(file));
    }

    @Test
    void aFileInAFolderThatDoesNotExistIsAProblem() {
        List<String> problems = new ArrayList<>();
        PidFile.check(dir.resolve("none/daemon.pid"), problems);
        assertEquals(
                List.of("--pid-file: " + dir.resolve("none/daemon.pid") + " (expected: a file in an existing folder)"),
                problems);
    }
}
