package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The entry becoming the spawn's command (SPEC R21): execve in place, so that the command is the
 * process, with the proxy variables and without the hand-over key, only fds 0-2, an empty signal
 * mask and no ignored signal.
 */
final class Exec {

    static final String NO_PROXY = "localhost,127.0.0.1,::1";

    /** As a shell reports them: the command was found but could not run, or was not found. */
    static final int CANNOT_EXECUTE = 126;

    static final int NOT_FOUND = 127;

    private Exec() {}

    /** Why the command could not start, and the shell's status for it. */
    record Failure(int status, String message) {}

    /** Replaces this process with {@code command}; returns only when it cannot. */
    static Failure become(List<String> command, int proxyPort) {
        Map<String, String> environment = commandEnvironment(System.getenv(), proxyPort);
        String name = command.getFirst();
        Optional<Path> program = find(name, environment.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        if (program.isEmpty()) {
            return new Failure(NOT_FOUND, name + ": not found");
        }
        List<String> pairs = new ArrayList<>();
        environment.forEach((key, value) -> pairs.add(key + "=" + value));
        System.out.flush();
        System.err.flush();
        try {
            Posix.closeOnExecFrom3();
            Posix.defaultSignals();
        } catch (IOException e) {
            return new Failure(CANNOT_EXECUTE, name + ": " + e.getMessage());
        }
        Posix.Failure failed = Posix.execve(program.get().toString(), command, pairs);
        return new Failure(
                failed.errno() == Posix.ENOENT ? NOT_FOUND : CANNOT_EXECUTE, name + ": " + failed.getMessage());
    }

    /** The command's environment: the entry's, with the proxy variables and without the hand-over key. */
    static Map<String, String> commandEnvironment(Map<String, String> entry, int proxyPort) {
        Map<String, String> environment = new TreeMap<>(entry);
        environment.remove(Handoff.Key.ENVIRONMENT);
        environment.putAll(proxyEnvironment(proxyPort));
        return environment;
    }

    static Map<String, String> proxyEnvironment(int proxyPort) {
        String proxy = "http://127.0.0.1:" + proxyPort;
        return Map.of(
                "HTTP_PROXY", proxy,
                "HTTPS_PROXY", proxy,
                "http_proxy", proxy,
                "https_proxy", proxy,
                "NO_PROXY", NO_PROXY,
                "no_proxy", NO_PROXY);
    }

    /** As a shell finds a command: a name with a slash as it is, else the first executable file on PATH. */
    static Optional<Path> find(String name, String path) {
        if (name.contains("/")) {
            return Files.exists(Path.of(name)) ? Optional.of(Path.of(name)) : Optional.empty();
        }
        for (String folder : path.split(":", -1)) {
            Path candidate = Path.of(folder.isEmpty() ? "." : folder, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
