package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code portcullis entry} as its own JVM, optionally inside a fresh network namespace (loopback
 * only, made by {@code unshare --net}, so fixed ports cannot collide), capturing its output.
 */
final class EntryProcess {
    /** The key every {@link TestRelay} expects, which the entry is given unless a test says otherwise. */
    static final Handoff.Key KEY = Handoff.Key.mint(new SecureRandom());

    /** A finished run. */
    record Result(int status, String stdout, String stderr) {
        List<String> stdoutLines() {
            return stdout.lines().toList();
        }
    }

    private final Path dir;
    private final List<String> shellPrelude = new ArrayList<>();
    private boolean freshNamespace;
    private boolean loopbackDown;
    private Optional<String> key = Optional.of(KEY.text());

    private EntryProcess(Path dir) {
        this.dir = dir;
    }

    /** The entry's stdout and stderr go to files in {@code dir}. */
    static EntryProcess in(Path dir) {
        return new EntryProcess(dir);
    }

    /** Fresh namespaces need root and unshare(1); the suite runs as root (see run-tests). */
    static boolean canMakeNamespaces() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"))
                    && Files.isExecutable(Path.of("/usr/bin/unshare"));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    EntryProcess freshNamespace() {
        freshNamespace = true;
        return this;
    }

    /** A fresh namespace as the kernel makes it: loopback down, no address at all. */
    EntryProcess freshNamespaceLoopbackDown() {
        freshNamespace = true;
        loopbackDown = true;
        return this;
    }

    /** The entry's {@value Handoff.Key#ENVIRONMENT}, or none when empty. */
    EntryProcess key(Optional<String> key) {
        this.key = key;
        return this;
    }

    /** A shell line run before the entry is exec'd, e.g. {@code exec 3>file} to hand it a descriptor. */
    EntryProcess before(String shellLine) {
        shellPrelude.add(shellLine);
        return this;
    }

    Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        if (freshNamespace) {
            command.addAll(List.of("unshare", "--net"));
        }
        String prelude = String.join("; ", shellPrelude);
        String script = (freshNamespace && !loopbackDown ? "ip link set lo up || exit 99; " : "")
                + (prelude.isEmpty() ? "" : prelude + "; ") + "exec \"$@\"";
        command.addAll(List.of("/bin/sh", "-c", script, "sh"));
        command.addAll(javaCommand());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove(Handoff.Key.ENVIRONMENT);
        key.ifPresent(text -> builder.environment().put(Handoff.Key.ENVIRONMENT, text));
        return builder.redirectInput(
                        ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(dir.resolve("stdout").toFile())
                .redirectError(dir.resolve("stderr").toFile())
                .start();
    }

    Result run(String... args) throws IOException, InterruptedException {
        return finish(start(args));
    }

    Result finish(Process process) throws IOException, InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the entry did not end within 30 s; stderr: " + read("stderr"));
        }
        return new Result(process.exitValue(), read("stdout"), read("stderr"));
    }

    String read(String name) throws IOException {
        Path file = dir.resolve(name);
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    /** Waits until the entry has written its readiness line to stdout. */
    String awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String out = read("stdout");
            if (out.contains("\n")) {
                return out.lines().findFirst().orElseThrow();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no readiness line within 20 s; stderr: " + read("stderr"));
    }

    private static List<String> javaCommand() {
        String java = ProcessHandle.current().info().command().orElseThrow();
        try {
            // The entry's classes and the hand-over's, as the entry's jar names wire.jar beside it.
            String classes = location(Main.class) + File.pathSeparator + location(Handoff.class);
            return List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Xshare:auto",
                    "-Xmx32m",
                    "-cp",
                    classes,
                    Main.class.getName());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static String location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }
}
