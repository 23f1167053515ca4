package io.portcullis.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 26 (#1): the command under {@code ./portcullis run} sees no process of ours and can signal
 * none: pid and IPC namespaces of its own with a {@code /proc} of their own, a {@code /tmp} of its
 * own unless the person passes {@code --share-tmp}, and a {@code /dev/shm} of its own. Both
 * sandboxes, run by the real executable.
 */
@Timeout(240)
class RunIsolationEndToEndTest {
    @TempDir
    Path dir;

    private Path host;
    private final List<Path> made = new ArrayList<>();

    @BeforeEach
    void hostConfig() throws IOException {
        // A name server where nothing answers, on loopback: nothing here looks a name up.
        host = Files.writeString(
                dir.resolve("host.json"), "{\"dns\": {\"servers\": [\"127.0.0.1:9\"], \"timeoutMillis\": 500}}");
    }

    @AfterEach
    void removeWhatWasMade() throws IOException {
        for (Path path : made) {
            Files.deleteIfExists(path);
        }
    }

    /** {@code ./portcullis run ... -- sh -c 'ls /proc'}: the sandbox's own pids, 1 its shell; no pid of the relay. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandSeesOnlyTheSandboxsOwnProcesses(String sandbox) throws Exception {
        Ran ran = run(sandbox, List.of(), "echo self=$$; ls /proc; readlink /proc/self/ns/pid /proc/self/ns/ipc", "");
        assertEquals(0, ran.run().exit(), ran.toString());
        List<String> lines = ran.run().out().lines().toList();
        Set<Long> pids = lines.stream()
                .filter(l -> l.matches("[0-9]+"))
                .map(Long::parseLong)
                .collect(Collectors.toSet());
        long self = Long.parseLong(lines.getFirst().substring("self=".length()));
        assertTrue(pids.contains(1L) && pids.contains(self), ran.toString());
        assertFalse(pids.contains(ran.relayPid()), "the relay's pid is seen inside: " + ran);
        assertTrue(pids.size() <= 4 && pids.stream().allMatch(p -> p < 100), "other processes are seen: " + pids);
        List<String> namespaces = lines.subList(lines.size() - 2, lines.size());
        assertNotEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString(), namespaces.get(0));
        assertNotEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/ipc")).toString(), namespaces.get(1));
    }

    /** From inside, {@code kill -0 <relay pid>} fails: no such process there. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandCannotSignalTheRelay(String sandbox) throws Exception {
        Ran ran = run(
                sandbox,
                List.of(),
                "read pid; kill -0 \"$pid\" 2>/dev/null; echo kill=$?; ls \"/proc/$pid\" >/dev/null 2>&1; echo proc=$?",
                "relay pid");
        assertEquals(0, ran.run().exit(), ran.toString());
        assertTrue(ran.run().out().contains("kill=1\n"), ran.toString());
        assertTrue(ran.run().out().contains("proc=2\n"), ran.toString());
    }

    /**
     * The command's {@code /tmp} is empty but for the spawn's directory and its working directory
     * (which is in /tmp here: it runs there), and gone when it ends; {@code --share-tmp} gives it
     * the host's. {@code /dev/shm} is its own either way.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"bwrap, ''", "unshare, ''", "bwrap, --share-tmp", "unshare, --share-tmp"})
    void tmpIsTheSandboxsOwnUnlessShared(String sandbox, String option) throws Exception {
        boolean shared = !option.isEmpty();
        Path hostFile = made(Files.writeString(
                Files.createTempFile(Path.of("/tmp"), "portcullis-host-", ".txt"), "the host's /tmp\n"));
        Path hostShm = made(Files.createTempFile(Path.of("/dev/shm"), "portcullis-host-", ""));
        Path inside = made(
                Path.of("/tmp", "portcullis-inside-" + ProcessHandle.current().pid() + "-" + sandbox));
        Files.writeString(dir.resolve("here.txt"), "the working directory's\n");
        String script = "pwd; cat here.txt; cat " + hostFile + " 2>/dev/null; echo cat=$?; ls -A /dev/shm; echo == ;"
                + " echo inside > " + inside + "; ls -A /tmp";
        Ran ran = run(sandbox, shared ? List.of(option) : List.of(), script, "");
        assertEquals(0, ran.run().exit(), ran.toString());
        String out = ran.run().out();
        assertTrue(
                out.startsWith(dir.toRealPath() + "\nthe working directory's\n"),
                "the command runs in its working directory, in /tmp too: " + ran);
        assertEquals(shared, out.contains("the host's /tmp\ncat=0\n"), ran.toString());
        assertFalse(out.contains(hostShm.getFileName().toString()), "the host's /dev/shm is seen: " + ran);
        assertEquals(shared, Files.exists(inside), "what the command wrote in /tmp is on the host: " + shared);
        if (!shared) {
            List<String> tmp = List.of(out.substring(out.indexOf("==\n") + 3).split("\n"));
            String spawn = "spawn-run-" + ran.relayPid() + "-";
            Set<String> shown = Set.of(
                    inside.getFileName().toString(),
                    Path.of("/tmp").relativize(dir.toRealPath()).getName(0).toString());
            assertTrue(
                    tmp.stream().allMatch(name -> name.startsWith(spawn) || shown.contains(name)),
                    "only the spawn's directory, the working directory and what the command wrote: " + tmp);
        }
    }

    private Path made(Path path) {
        made.add(path);
        return path;
    }

    /** One run: the relay's pid (the run's JVM) and what the run printed. */
    private record Ran(long relayPid, Run run) {}

    /**
     * {@code ./portcullis run --sandbox SANDBOX OPTIONS -- sh -c SCRIPT}, given {@code stdin} on
     * its standard input ({@code relay pid}: the run's own pid, which it becomes when it execs java).
     */
    private Ran run(String sandbox, List<String> options, String script, String stdin) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--sandbox", sandbox, "--host", host.toString()));
        args.addAll(options);
        args.addAll(List.of("--", "/bin/sh", "-c", script));
        Process process = Portcullis.command(args).directory(dir.toFile()).start();
        long pid = process.pid();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        try (var in = process.getOutputStream()) {
            in.write((stdin.equals("relay pid") ? pid + "\n" : stdin).getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(args + ": no exit within 60 s; stderr: " + err.join());
        }
        return new Ran(pid, new Run(process.exitValue(), out.join(), err.join()));
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
