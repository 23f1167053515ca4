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

/** Loads configuration files so that a command can report the problems of all of them at once. */
final class ConfigFiles {
    private ConfigFiles() {}

    /** Reads one file. */
    @FunctionalInterface
    interface Loader<T> {
        T load() throws ConfigException;
    }

    /** The loaded value, or null after adding its problems to {@code problems}. */
    static <T> T load(Loader<T> loader, List<String> problems) {
        try {
            return loader.load();
        } catch (ConfigException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /** The spawn policy in {@code file}, or null after adding its problems. */
    static SpawnPolicy spawn(Path file, List<String> problems) {
        return load(() -> SpawnPolicyJson.read(file), problems);
    }

    /** The host configuration in {@code file} (the defaults when null), or null after adding its problems. */
    static HostConfig host(Path file, List<String> problems) {
        return file == null ? HostConfig.DEFAULTS : load(() -> HostConfigJson.read(file), problems);
    }

    /** Adds a problem when {@code parent} (the spawns' directories' parent) is given and is no directory. */
    static void checkParent(Path parent, List<String> problems) {
        if (parent != null && !Files.isDirectory(parent)) {
            problems.add("--dir: " + parent + " (expected: an existing directory)");
        }
    }

    /** A file the command will create or replace: its folder must exist now, not when it is first written. */
    static void checkNewFile(String option, Path file, List<String> problems) {
        if (file != null
                && (Files.isDirectory(file)
                        || !Files.isDirectory(file.toAbsolutePath().getParent()))) {
            problems.add(option + ": " + file + " (expected: a file in an existing directory)");
        }
    }

    /** Prints every problem on {@code err}; true when there was one. */
    static boolean report(List<String> problems, PrintWriter err) {
        problems.forEach(err::println);
        err.flush();
        return !problems.isEmpty();
    }

    /** A relay builder for {@code host}, with the spawns' directories under {@code parent} when given. */
    static Relay.Builder relay(HostConfig host, Path parent) {
        Relay.Builder builder = Relay.builder(host);
        if (parent != null) {
            builder.directory(parent);
        }
        return builder;
    }
}
