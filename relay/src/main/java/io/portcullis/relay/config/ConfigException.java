package io.portcullis.relay.config;

import java.io.Serial;
import java.util.List;

/** A configuration that cannot be used, with every problem found, one line each. */
public final class ConfigException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    public ConfigException(String source, List<String> problems) {
        super(source + ": " + problems.size() + (problems.size() == 1 ? " problem" : " problems")
                + System.lineSeparator() + String.join(System.lineSeparator(), problems));
        this.problems = List.copyOf(problems);
    }

    /** One line each, e.g. {@code hosts[2].target: "a@b:443" (expected: host:port)}. */
    public List<String> problems() {
        return problems;
    }
}
