package io.portcullis.relay.cli;

import io.portcullis.relay.config.ConfigException;
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
}
