package io.portcullis.relay.launch;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One sandboxed command: a spawn opened on a relay of this process, and the entry running the
 * command in a new user and network namespace. {@link #close()} ends the command if it still runs
 * and closes the spawn, which removes its directory; it is safe from any thread, more than once.
 */
public final class Launch implements AutoCloseable {
    /** How long the entry has to pass a stop on to the command (it gives the command 5 s). */
    public static final Duration STOP_GRACE = Duration.ofSeconds(7);

    /** The namespace's resolver configuration: the relay answers its DNS socket (SPEC R24). */
    static final String RESOLV_CONF =
            "# portcullis: this namespace's DNS, answered by the relay from the spawn's policy\n"
                    + "nameserver 127.0.0.1\n";

    private final SpawnHandle spawn;
    private final Path ready;
    private final Optional<Path> resolv;
    private final Process process;

    private Launch(SpawnHandle spawn, Path ready, Optional<Path> resolv, Process process) {
        this.spawn = spawn;
        this.resolv = resolv;
        this.ready = ready;
        this.process = process;
    }

    /**
     * Opens {@code policy} on {@code relay} and starts the entry with {@code command} in {@code sandbox}.
     *
     * @param io sets the child's standard streams (for example {@link ProcessBuilder#inheritIO()})
     */
    public static Launch start(
            Relay relay,
            SpawnPolicy policy,
            Sandbox sandbox,
            EntryCommand entry,
            List<String> command,
            UnaryOperator<ProcessBuilder> io)
            throws IOException {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(io, "io");
        SpawnHandle spawn = relay.open(policy);
        Path ready = null;
        Optional<Path> resolv = Optional.empty();
        try {
            ready = Files.createTempFile(
                    "portcullis-ready-",
                    ".json",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Optional<Path> hostResolv = hostResolvConf();
            if (hostResolv.isPresent()) {
                resolv = Optional.of(Files.writeString(
                        Files.createTempFile(
                                "portcullis-resolv-",
                                ".conf",
                                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--"))),
                        RESOLV_CONF));
            }
            Optional<Sandbox.Resolver> resolver =
                    resolv.map(file -> new Sandbox.Resolver(file, hostResolv.orElseThrow()));
            List<String> argv = sandbox.wrap(entry.argv(spawn, Sandbox.READY_FD, command), ready, resolver);
            Process process = io.apply(new ProcessBuilder(argv)).start();
            return new Launch(spawn, ready, resolv, process);
        } catch (IOException | RuntimeException e) {
            spawn.close();
            if (ready != null) {
                Files.deleteIfExists(ready);
            }
            if (resolv.isPresent()) {
                Files.deleteIfExists(resolv.get());
            }
            throw e;
        }
    }

    /**
     * The host's {@code /etc/resolv.conf} as a file to mount over (where its link points when it
     * is one); empty when there is none, and then the namespace has no resolver configuration at
     * all (nothing may be created in the host's {@code /etc}).
     */
    private static Optional<Path> hostResolvConf() {
        try {
            Path real = Path.of("/etc/resolv.conf").toRealPath();
            return Files.isRegularFile(real) ? Optional.of(real) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The spawn this command runs under. */
    public SpawnHandle spawn() {
        return spawn;
    }

    /** The sandbox's process; its standard streams are those {@code io} chose. */
    public Process process() {
        return process;
    }

    /** Waits for the command; its status, 128+S when signal S ended it. */
    public int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    /**
     * Whether the entry wrote its readiness line: false after a non-zero exit means the sandbox or
     * the entry failed before the command could start.
     */
    public boolean entryWasReady() {
        try {
            return Files.size(ready) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Asks the command to stop: SIGTERM to every process under the sandbox's own (the entry passes a
     * stop on to the command, and bubblewrap exits with its child); waits up to {@code grace}, then
     * kills what is left. Returns the exit status.
     */
    public int stop(Duration grace) throws InterruptedException {
        if (process.isAlive()) {
            // Not bubblewrap itself while its child runs: its death would kill the entry before it
            // could pass the stop on.
            List<ProcessHandle> tree = process.descendants().toList();
            if (tree.isEmpty()) {
                process.destroy();
            } else {
                tree.forEach(ProcessHandle::destroy);
            }
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(tree);
            }
        }
        return process.waitFor();
    }

    private void kill(List<ProcessHandle> known) {
        known.forEach(ProcessHandle::destroyForcibly);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Stops the command if it still runs, closes the spawn and removes the readiness file. */
    @Override
    public void close() {
        try {
            stop(STOP_GRACE);
        } catch (InterruptedException e) {
            kill(List.of());
            Thread.currentThread().interrupt();
        } finally {
            try {
                spawn.close();
            } finally {
                try {
                    Files.deleteIfExists(ready);
                    if (resolv.isPresent()) {
                        Files.deleteIfExists(resolv.get());
                    }
                } catch (IOException e) {
                    // A stale readiness or resolver file in the temporary directory holds no secret.
                }
            }
        }
    }
}
