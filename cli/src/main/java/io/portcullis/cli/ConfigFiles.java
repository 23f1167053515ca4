package io.portcullis.cli;

import io.portcullis.relay.Relay;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Loads configuration files so that a command can report the problems of all of them at once. */
final class ConfigFiles {
    private ConfigFiles() {}

    /** Reads one file. */
    @FunctionalInterface
    interface Loader<T> {
        T load() throws ConfigException;
    }

    /**
     * The loaded value; empty after adding its problems to {@code problems}. A command reports every
     * problem at once (see {@link #report}) and then takes what was loaded.
     */
    static <T> Optional<T> load(Loader<T> loader, List<String> problems) {
        try {
            return Optional.of(loader.load());
        } catch (ConfigException e) {
            problems.add(e.getMessage());
            return Optional.empty();
        }
    }

    /** The spawn policy in {@code file}; empty after adding its problems. */
    static Optional<SpawnPolicy> spawn(Path file, List<String> problems) {
        return load(() -> SpawnPolicyJson.read(file), problems);
    }

    /** The host configuration in {@code file} (the defaults without one); empty after adding its problems. */
    static Optional<HostConfig> host(Optional<Path> file, List<String> problems) {
        return file.isEmpty()
                ? Optional.of(HostConfig.DEFAULTS)
                : load(() -> HostConfigJson.read(file.get()), problems);
    }

    /** Adds a problem when {@code parent} (the spawns' directories' parent) is given and is no directory. */
    static void checkParent(Optional<Path> parent, List<String> problems) {
        if (parent.isPresent() && !Files.isDirectory(parent.get())) {
            problems.add("--dir: " + parent.get() + " (expected: an existing directory)");
        }
    }

    /** A file the command will create or replace: its folder must exist now, not when it is first written. */
    static void checkNewFile(String option, Optional<Path> file, List<String> problems) {
        if (file.isEmpty()) {
            return;
        }
        Path folder = file.get().toAbsolutePath().getParent();
        if (Files.isDirectory(file.get()) || folder == null || !Files.isDirectory(folder)) {
            problems.add(option + ": " + file.get() + " (expected: a file in an existing directory)");
        }
    }

    /** Prints every problem on {@code err}; true when there was one. */
    static boolean report(List<String> problems, PrintWriter err) {
        problems.forEach(err::println);
        err.flush();
        return !problems.isEmpty();
    }

    /** A relay builder for {@code host}, with the spawns' directories under {@code parent} when given. */
    static Relay.Builder relay(HostConfig host, Optional<Path> parent) {
        Relay.Builder builder = Relay.builder(host);
        parent.ifPresent(builder::directory);
        return builder;
    }
}
