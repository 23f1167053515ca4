package io.portcullis.launch;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
    private final List<Path> written;
    private final Process process;

    private Launch(SpawnHandle spawn, Path ready, List<Path> written, Process process) {
        this.spawn = spawn;
        this.written = List.copyOf(written);
        this.ready = ready;
        this.process = process;
    }

    /**
     * Opens {@code policy} on {@code relay} and starts the entry with {@code command} in {@code
     * sandbox}, with a {@code /tmp} of its own or the host's.
     *
     * @param io sets the child's standard streams (for example {@link ProcessBuilder#inheritIO()})
     */
    public static Launch start(
            Relay relay,
            SpawnPolicy policy,
            Sandbox sandbox,
            Sandbox.Tmp tmp,
            EntryCommand entry,
            List<String> command,
            UnaryOperator<ProcessBuilder> io)
            throws IOException {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(tmp, "tmp");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(io, "io");
        SpawnHandle spawn = relay.open(policy);
        Path ready = null;
        List<Path> written = new ArrayList<>();
        try {
            ready = Files.createTempFile(
                    "portcullis-ready-",
                    ".json",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Optional<Sandbox.Resolver> resolver = resolver(written);
            List<Path> shown =
                    new ArrayList<>(List.of(spawn.socket().toAbsolutePath().getParent()));
            shown.addAll(entry.installation());
            shown.addAll(tmp.shown());
            Sandbox.Scratch scratch = scratch(
                    tmp.shared(),
                    Files.isDirectory(SHM),
                    shown.stream().filter(Files::isDirectory).toList());
            List<String> argv = sandbox.wrap(entry.argv(spawn, Sandbox.READY_FD, command), ready, resolver, scratch);
            ProcessBuilder builder = new ProcessBuilder(argv);
            // The key rides in the environment, which only this uid and root may read; argv is everyone's.
            builder.environment().put(Handoff.Key.ENVIRONMENT, spawn.handoffKey());
            Process process = io.apply(builder).start();
            return new Launch(spawn, ready, written, process);
        } catch (IOException | RuntimeException e) {
            spawn.close();
            if (ready != null) {
                Files.deleteIfExists(ready);
            }
            for (Path file : written) {
                Files.deleteIfExists(file);
            }
            throw e;
        }
    }

    static final Path TMP = Path.of("/tmp");
    static final Path SHM = Path.of("/dev/shm");

    /**
     * What the sandbox has of its own: {@code /tmp} unless it is {@code shared}, and {@code /dev/shm}
     * where the host has it ({@code shm}); of {@code shown}, each folder that lies in one of them is
     * kept, unless a kept folder holds it already, each folder before what it holds. Pure.
     */
    static Sandbox.Scratch scratch(boolean shared, boolean shm, List<Path> shown) {
        List<Path> fresh = new ArrayList<>();
        if (!shared) {
            fresh.add(TMP);
        }
        if (shm) {
            fresh.add(SHM);
        }
        List<Path> inFresh = shown.stream()
                .map(Path::normalize)
                .filter(p -> fresh.stream().anyMatch(f -> p.startsWith(f) && !p.equals(f)))
                .distinct()
                .sorted(Comparator.comparingInt(Path::getNameCount).thenComparing(Comparator.naturalOrder()))
                .toList();
        List<Path> kept = new ArrayList<>();
        for (Path directory : inFresh) {
            if (kept.stream().noneMatch(directory::startsWith)) {
                kept.add(directory);
            }
        }
        return new Sandbox.Scratch(fresh, kept);
    }

    /**
     * The folders a command needs of the host's {@code /tmp}, where they lie in it: its working
     * directory and each absolute folder of its {@code PATH}. Pure.
     */
    public static List<Path> commandFolders(Path workingDirectory, Optional<String> path) {
        List<Path> folders = new ArrayList<>(List.of(workingDirectory.toAbsolutePath()));
        for (String folder : path.orElse("").split(":")) {
            if (folder.startsWith("/")) {
                folders.add(Path.of(folder));
            }
        }
        return folders;
    }

    /** Host daemons' socket directories that resolve names for a client without resolv.conf. */
    static final List<Path> RESOLVING_DAEMONS = List.of(
            Path.of("/run/systemd/resolve"),
            Path.of("/run/nscd"),
            Path.of("/var/run/nscd"),
            Path.of("/run/avahi-daemon"),
            Path.of("/var/run/avahi-daemon"));

    /**
     * The sandbox's resolver configuration: a resolv.conf naming the spawn's DNS socket, a name
     * service switch whose hosts line is {@code files dns} (the rest as the host's), and the
     * resolving daemons' directories hidden, each only where the host has it (nothing may be
     * created on the host). Empty without a host resolv.conf to mount over; the files made are
     * added to {@code written}.
     */
    private static Optional<Sandbox.Resolver> resolver(List<Path> written) throws IOException {
        Optional<Path> hostResolv = realFile(Path.of("/etc/resolv.conf"));
        if (hostResolv.isEmpty()) {
            return Optional.empty();
        }
        List<Sandbox.Resolver.Bind> files = new ArrayList<>();
        files.add(new Sandbox.Resolver.Bind(temporary("portcullis-resolv-", RESOLV_CONF, written), hostResolv.get()));
        Optional<Path> hostSwitch = realFile(Path.of("/etc/nsswitch.conf"));
        if (hostSwitch.isPresent()) {
            String own = nsswitch(Files.readString(hostSwitch.get()));
            files.add(new Sandbox.Resolver.Bind(temporary("portcullis-nsswitch-", own, written), hostSwitch.get()));
        }
        Set<Path> hidden = new LinkedHashSet<>();
        for (Path daemon : RESOLVING_DAEMONS) {
            try {
                Path real = daemon.toRealPath();
                if (Files.isDirectory(real)) {
                    hidden.add(real);
                }
            } catch (IOException e) {
                // not on this host
            }
        }
        return Optional.of(new Sandbox.Resolver(files, List.copyOf(hidden)));
    }

    /** The host's name service switch with its hosts line replaced by {@code hosts: files dns}. Pure. */
    static String nsswitch(String host) {
        StringBuilder out = new StringBuilder("# portcullis: names resolve from /etc/hosts and the spawn's DNS only\n");
        boolean hosts = false;
        for (String line : host.lines().toList()) {
            if (line.strip().startsWith("hosts:")) {
                hosts = true;
                out.append("hosts: files dns\n");
            } else {
                out.append(line).append('\n');
            }
        }
        if (!hosts) {
            out.append("hosts: files dns\n");
        }
        return out.toString();
    }

    private static Path temporary(String prefix, String content, List<Path> written) throws IOException {
        Path file = Files.createTempFile(
                prefix, ".conf", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        written.add(file);
        return Files.writeString(file, content);
    }

    private static Optional<Path> realFile(Path path) {
        try {
            Path real = path.toRealPath();
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
                    for (Path file : written) {
                        Files.deleteIfExists(file);
                    }
                } catch (IOException e) {
                    // A stale readiness or resolver file in the temporary directory holds no secret.
                }
            }
        }
    }
}
