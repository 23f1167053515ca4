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
            Set<String> shown = new java.util.HashSet<>(Set.of(
                    inside.getFileName().toString(),
                    Path.of("/tmp").relativize(dir.toRealPath()).getName(0).toString()));
            // A checkout under /tmp: the sandbox sees the program's own folder, which it runs the entry from.
            Path checkout = Path.of("").toAbsolutePath();
            if (checkout.startsWith("/tmp") && checkout.getNameCount() > 1) {
                shown.add(checkout.getName(1).toString());
            }
            assertTrue(
                    tmp.stream().allMatch(name -> name.startsWith(spawn) || shown.contains(name)),
                    "only the spawn's directory, the working directory and what the command wrote: " + tmp);
        }
    }

    /**
     * Issue 26 (a review of its fixes, finding 3): under unshare the command was root of the user
     * namespace that owns its mounts, and under bubblewrap run by root (as here) it kept root's
     * capabilities; either way it could unmount what the sandbox mounted to see the host's beneath:
     * its /tmp, /dev/shm and /proc, the resolver's files, the tmpfs that hides a resolving daemon's
     * sockets (a way to the host's DNS), a folder bound back. Every one fails now, and nothing of the
     * host shows. Run in a mount namespace of the test's own whose /run holds such a daemon's folder,
     * so nothing is made on the host's.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bwrap", "unshare"})
    void theCommandCannotUnmountWhatHidesTheHost(String sandbox) throws Exception {
        Path hostFile = made(Files.writeString(
                Files.createTempFile(Path.of("/tmp"), "portcullis-host-", ".txt"), "the host's /tmp\n"));
        Path hostShm = made(Files.createTempFile(Path.of("/dev/shm"), "portcullis-host-", ""));
        String socket = "portcullis-daemon-socket-" + ProcessHandle.current().pid();
        List<String> daemon = List.of(
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "--",
                "/bin/sh",
                "-c",
                "mount -t tmpfs tmpfs /run && mkdir /run/avahi-daemon && : > /run/avahi-daemon/" + socket
                        + " && exec \"$@\"",
                "sh");
        String script =
                "for m in /tmp /dev/shm /proc \"$(realpath /etc/resolv.conf)\" \"$(realpath /etc/nsswitch.conf)\""
                        + " /run/avahi-daemon \"$PWD\"; do"
                        + " umount \"$m\" 2>/dev/null; echo \"umount $m=$?\"; umount -l \"$m\" 2>/dev/null; echo \"umount -l $m=$?\";"
                        + " done;"
                        + " mkdir /tmp/probe && mount --bind / /tmp/probe 2>/dev/null; echo \"mount --bind /=$?\";"
                        + " echo ==; ls /proc; ls -A /tmp /tmp/probe/tmp /dev/shm /run/avahi-daemon 2>/dev/null;"
                        + " head -n 1 /etc/resolv.conf";
        Ran ran = run(daemon, sandbox, List.of(), script, "");
        assertEquals(0, ran.run().exit(), ran.toString());
        String out = ran.run().out();
        List<String> tried = out.substring(0, out.indexOf("==\n")).lines().toList();
        assertEquals(15, tried.size(), ran.toString());
        assertTrue(tried.stream().noneMatch(line -> line.endsWith("=0")), "a mount came off: " + tried);
        Set<Long> pids = out.lines()
                .filter(l -> l.matches("[0-9]+"))
                .map(Long::parseLong)
                .collect(Collectors.toSet());
        assertTrue(pids.size() <= 4 && pids.stream().allMatch(p -> p < 100), "other processes are seen: " + pids);
        for (String host :
                List.of(hostFile.getFileName().toString(), hostShm.getFileName().toString(), socket)) {
            assertFalse(out.contains(host), "the host's " + host + " is seen: " + ran);
        }
        assertTrue(
                out.endsWith("# portcullis: this namespace's DNS, answered by the relay from the spawn's policy\n"),
                ran.toString());
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
        return run(List.of(), sandbox, options, script, stdin);
    }

    /** The same, started by {@code around} (a command that runs its arguments). */
    private Ran run(List<String> around, String sandbox, List<String> options, String script, String stdin)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--sandbox", sandbox, "--host", host.toString()));
        args.addAll(options);
        args.addAll(List.of("--", "/bin/sh", "-c", script));
        ProcessBuilder builder = Portcullis.command(args).directory(dir.toFile());
        List<String> argv = new ArrayList<>(around);
        argv.addAll(builder.command());
        Process process = builder.command(argv).start();
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
