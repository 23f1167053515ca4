package io.portcullis.launch;

import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How the entry is started: the JVM command line that the launcher composed for it, with its tuned
 * options and start-up cache; else {@code ./portcullis entry}, which composes the same; or, without
 * that executable, this JVM's {@code java} with the entry's jar.
 *
 * @param prefix the command line up to the entry's own options
 * @param installation the directories the entry runs from (its program, jars and Java runtime),
 *     absolute, which a sandbox with a {@code /tmp} of its own must still show where they lie in
 *     {@code /tmp}
 */
public record EntryCommand(List<String> prefix, List<Path> installation) {
    private static final String ENTRY_MAIN = "io.portcullis.entry.Main";

    public EntryCommand {
        prefix = List.copyOf(prefix);
        installation = List.copyOf(installation);
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("prefix: [] (expected: a program to run)");
        }
        for (Path directory : installation) {
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("installation: " + directory + " (expected: an absolute path)");
            }
        }
    }

    /**
     * {@code EXECUTABLE entry}, the way a user runs the entry, on the Java runtime at {@code
     * javaHome}. The executable's installation is the folder it lies in (a checkout's root), or, for
     * one in a {@code bin} folder (a distribution's {@code bin/portcullis}), the folder above.
     */
    public static EntryCommand executable(Path portcullis, Path javaHome) {
        Path real = real(portcullis);
        Path folder = Objects.requireNonNullElse(real.getParent(), real);
        Path name = folder.getFileName();
        Path above = folder.getParent();
        Path installation = name != null && name.toString().equals("bin") && above != null ? above : folder;
        return new EntryCommand(List.of(portcullis.toString(), "entry"), List.of(installation, real(javaHome)));
    }

    /**
     * The entry's JVM command line as the executable's launcher composed it ({@code prefix}: the
     * {@code java}, the entry's options and start-up cache, its jar and main class), run without the
     * launcher's shell in between (decision D100); the installation is {@link #executable}'s.
     */
    public static EntryCommand launched(List<String> prefix, Path portcullis, Path javaHome) {
        return new EntryCommand(prefix, executable(portcullis, javaHome).installation());
    }

    /** {@code path}'s real path, or, where it cannot be read, its absolute form. */
    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }

    /**
     * The options that every JVM of ours starts with: no attach, no agent loaded while it runs, no
     * hsperfdata file (decision D53). The launchers' own definition is scripts/launch.sh's {@code
     * jvm_hardening}; this is the same, for the entry started without them.
     */
    static final List<String> JVM_HARDENING =
            List.of("-XX:+DisableAttachMechanism", "-XX:-EnableDynamicAgentLoading", "-XX:-UsePerfData");

    /** This JVM's {@code java} with the jar that holds the entry; it depends on the JDK alone. */
    public static EntryCommand thisJava(Path javaHome) {
        List<String> prefix = new ArrayList<>(List.of(
                javaHome.resolve("bin").resolve("java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xmx32m",
                "-Xlog:disable",
                "-Xlog:all=warning:stderr"));
        prefix.addAll(JVM_HARDENING);
        prefix.addAll(List.of("-cp", entryJar().toString(), ENTRY_MAIN));
        return new EntryCommand(prefix, List.of(real(javaHome), real(entryJar()).getParent()));
    }

    private static Path entryJar() {
        try {
            return Path.of(io.portcullis.entry.Main.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the entry's jar cannot be found: " + e.getMessage(), e);
        }
    }

    /** The entry's command line for {@code spawn}, with the readiness line on {@code readyFd} and then {@code command}. */
    public List<String> argv(SpawnHandle spawn, int readyFd, List<String> command) {
        Objects.requireNonNull(spawn, "spawn");
        return argv(
                spawn.socket(),
                spawn.proxyPort(),
                spawn.forwards(),
                spawn.door(),
                spawn.named().stream().map(SpawnPolicy.Named::address).toList(),
                readyFd,
                command);
    }

    /** The entry's command line; it always binds the namespace's DNS socket ({@code --dns}, SPEC R24). */
    List<String> argv(
            Path socket,
            int proxyPort,
            List<Integer> forwards,
            OptionalInt door,
            List<InetSocketAddress> named,
            int readyFd,
            List<String> command) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command: [] (expected: a program to run)");
        }
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(List.of("--relay", socket.toString(), "--proxy-port", String.valueOf(proxyPort)));
        for (int port : forwards) {
            argv.addAll(List.of("--forward", String.valueOf(port)));
        }
        door.ifPresent(port -> argv.addAll(List.of("--door", String.valueOf(port))));
        for (InetSocketAddress address : named) {
            argv.addAll(List.of("--named", Handoff.text(address)));
        }
        argv.addAll(List.of("--dns", "--ready-fd", String.valueOf(readyFd), "--"));
        argv.addAll(command);
        return argv;
    }
}
