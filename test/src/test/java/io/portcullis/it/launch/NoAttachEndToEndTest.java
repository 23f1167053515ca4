package io.portcullis.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 (#1): no JVM of ours can be attached to. {@code jcmd}, run as root outside every sandbox,
 * against the relay of {@code ./portcullis run} and against {@code ./portcullis daemon}, each
 * started by the real executable as a person or a unit starts it: the attach fails, no agent is
 * loaded, and no hsperfdata file names the JVM. With the attach mechanism forced back on
 * ({@code _JAVA_OPTIONS}, which overrides the command line), an agent is still refused; with
 * agent loading forced on too, the same agent loads, which shows the test can see one load.
 */
@Timeout(240)
class NoAttachEndToEndTest {
    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    /** jcmd waits this long for a JVM to answer; one that may be attached to answers within it. */
    private static final String ATTACH_TIMEOUT = "-J-Dsun.tools.attach.attachTimeout=5000";

    @TempDir
    Path dir;

    private Path host;

    @BeforeEach
    void hostConfig() throws IOException {
        // A name server where nothing answers, on loopback: nothing here looks a name up.
        host = Files.writeString(
                dir.resolve("host.json"), "{\"dns\": {\"servers\": [\"127.0.0.1:9\"], \"timeoutMillis\": 500}}");
    }

    @Test
    void runsRelayCannotBeAttachedToNorGivenAnAgent() throws Exception {
        try (Started run = run("")) {
            long pid = run.process().pid();
            Run version = jcmd(pid, "VM.version");
            assertNotEquals(0, version.exit(), version.toString());
            assertTrue(said(version).contains("AttachNotSupportedException"), version.toString());
            assertFalse(said(version).contains("VM version"), version.toString());
            Path marker = dir.resolve("agent-ran");
            Run agent = jcmd(pid, "JVMTI.agent_load", agentJar().toString(), marker.toString());
            assertNotEquals(0, agent.exit(), agent.toString());
            assertFalse(Files.exists(marker), "the agent ran in the relay: " + agent);
            assertNoPerfData(pid);
        }
    }

    @Test
    void theDaemonCannotBeAttachedTo() throws Exception {
        Path spawns = Files.createDirectory(dir.resolve("spawns"));
        ProcessBuilder daemon = Portcullis.command(List.of(
                "daemon",
                "--host",
                host.toString(),
                "--control",
                dir.resolve("control.sock").toString(),
                "--dir",
                spawns.toString()));
        try (Started started = Started.start(daemon, dir, "\"control\"")) {
            long pid = started.process().pid();
            Run version = jcmd(pid, "VM.version");
            assertNotEquals(0, version.exit(), version.toString());
            assertTrue(said(version).contains("AttachNotSupportedException"), version.toString());
            assertNoPerfData(pid);
        }
    }

    @Test
    void withAttachForcedOnAnAgentIsStillRefused() throws Exception {
        Path marker = dir.resolve("agent-ran");
        try (Started run = run("-XX:-DisableAttachMechanism")) {
            Run version = jcmd(run.process().pid(), "VM.version");
            assertEquals(0, version.exit(), "jcmd attaches where the mechanism is on: " + version);
            assertTrue(version.out().contains("VM version"), version.toString());
            Run agent = jcmd(run.process().pid(), "JVMTI.agent_load", agentJar().toString(), marker.toString());
            assertFalse(Files.exists(marker), "the agent ran in the relay: " + agent);
        }
        try (Started run = run("-XX:-DisableAttachMechanism -XX:+EnableDynamicAgentLoading")) {
            Run agent = jcmd(run.process().pid(), "JVMTI.agent_load", agentJar().toString(), marker.toString());
            assertEquals(0, agent.exit(), agent.toString());
            assertEquals("loaded", Files.readString(marker), "the test's agent loads where loading is on");
        }
    }

    /** {@code ./portcullis run} with a command that waits, once the command runs. */
    private Started run(String javaOptions) throws Exception {
        ProcessBuilder run = Portcullis.command(
                List.of("run", "--host", host.toString(), "--", "/bin/sh", "-c", "echo started; exec sleep 120"));
        if (!javaOptions.isEmpty()) {
            run.environment().put("_JAVA_OPTIONS", javaOptions);
        }
        return Started.start(run, dir, "started");
    }

    private static Run jcmd(long pid, String... command) throws Exception {
        List<String> argv = new ArrayList<>(List.of(JCMD.toString(), ATTACH_TIMEOUT, String.valueOf(pid)));
        argv.addAll(List.of(command));
        return Run.of(argv, "", 60);
    }

    private static String said(Run run) {
        return run.out() + run.err();
    }

    /** -XX:-UsePerfData: the JVM writes no /tmp/hsperfdata_USER/PID, which names it to jcmd. */
    private static void assertNoPerfData(long pid) {
        Path perfData = Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), String.valueOf(pid));
        assertFalse(Files.exists(perfData), perfData + " exists");
    }

    /** {@link MarkerAgent} in a jar of its own, as {@code JVMTI.agent_load} takes a Java agent. */
    private Path agentJar() throws IOException {
        Path jar = dir.resolve("marker-agent.jar");
        if (Files.exists(jar)) {
            return jar;
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Agent-Class"), MarkerAgent.class.getName());
        String entry = MarkerAgent.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream in = MarkerAgent.class.getResourceAsStream("MarkerAgent.class")) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    /** A running {@code ./portcullis} command, its output in files; closing it stops it (SIGTERM). */
    private record Started(Process process, Path out, Path err) implements AutoCloseable {
        static Started start(ProcessBuilder builder, Path dir, String ready) throws Exception {
            Path out = Files.createTempFile(dir, "out-", ".txt");
            Path err = Files.createTempFile(dir, "err-", ".txt");
            Process process = builder.directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
            Started started = new Started(process, out, err);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(out).contains(ready) && process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            if (!Files.readString(out).contains(ready)) {
                started.close();
                throw new AssertionError(builder.command() + " never said " + ready + ": "
                        + Map.of("out", Files.readString(out), "err", Files.readString(err)));
            }
            assertTrue(
                    process.info().command().orElse("").endsWith("/java"),
                    "the executable became the JVM: " + process.info());
            return started;
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (process.waitFor(30, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
