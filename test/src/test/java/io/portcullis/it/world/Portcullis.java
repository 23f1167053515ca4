package io.portcullis.it.world;

import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The real {@code ./portcullis} executable, as a user runs it, from the repository root that the
 * build passes in the {@code portcullis.root} system property.
 */
public final class Portcullis {
    /** Quick start for short-lived commands; the relay's behaviour does not depend on them. */
    private static final String JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto";

    private Portcullis() {}

    public static Path root() {
        String root = System.getProperty("portcullis.root");
        if (root == null || !Files.isExecutable(Path.of(root, "portcullis"))) {
            throw new IllegalStateException("portcullis.root: " + root
                    + " (expected: the repository root holding ./portcullis, set by the test module's pom)");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    /** {@code ./portcullis args...}, ready to start. */
    public static ProcessBuilder command(List<String> args) {
        List<String> argv = new ArrayList<>(List.of(root().resolve("portcullis").toString()));
        argv.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().put("PORTCULLIS_JAVA_OPTS", JAVA_OPTS);
        return builder;
    }

    /** Runs {@code ./portcullis args...} to its end, with {@code stdin} as its standard input. */
    public static Run run(List<String> args, String stdin) throws IOException, InterruptedException {
        return Run.of(command(args), stdin, 60);
    }

    /**
     * {@code ./portcullis entry --relay SOCKET entryArgs... -- command...}, ready to start, the way a
     * wall runs it: in a fresh network namespace with loopback only, the spawn's hand-over {@code
     * key} in its environment.
     */
    public static ProcessBuilder entryInSpawnNamespace(
            Path socket, String key, List<String> entryArgs, List<String> command) {
        List<String> argv = new ArrayList<>(
                List.of(root().resolve("portcullis").toString(), "entry", "--relay", socket.toString()));
        argv.addAll(entryArgs);
        if (!command.isEmpty()) {
            argv.add("--");
            argv.addAll(command);
        }
        return withKey(new ProcessBuilder(TestWorld.inSpawnNamespace(argv)), key);
    }

    /** {@code builder} with the spawn's hand-over key where the entry reads it. */
    public static ProcessBuilder withKey(ProcessBuilder builder, String key) {
        builder.environment().put(Handoff.Key.ENVIRONMENT, key);
        return builder;
    }
}
