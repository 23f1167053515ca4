package io.portcullis.cli;

import io.portcullis.launch.Sandbox;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code portcullis run}'s arguments read without picocli when they are plain (decision D100):
 * picocli builds its model of a command by reflection, from classes too old for the AOT cache, and
 * that took about 0.18 s of a 0.72 s {@code run -- true}. Plain means: {@code run} first; before
 * {@code --}, only run's own options, each as {@code --name value} (the value a word of its own
 * that does not start with {@code -}) or {@code --name=value} (read as picocli reads it), each once
 * ({@code --allow} as often as wanted); after {@code --}, at least one word; no {@code @file}
 * anywhere. Anything else (help, a misspelling, a repeated option, a
 * value picocli would read another way, a bad {@code --sandbox}) is left to picocli, which reads it
 * as always and says what is wrong. RunArgumentsTest holds both readings equal and this list of
 * options to picocli's model of run.
 */
final class RunArguments {
    /** run's options that take a value. */
    static final Set<String> VALUED = Set.of("--spawn", "--host", "--allow", "--log", "--dir", "--sandbox");
    /** run's options that take none. */
    static final Set<String> FLAGS = Set.of("--internet", "--share-tmp");

    private static final String END_OF_OPTIONS = "--";

    private RunArguments() {}

    /** {@code args} as picocli would fill a {@link RunCommand}; empty when they are not plain. */
    static Optional<RunCommand> read(List<String> args) {
        int end = args.indexOf(END_OF_OPTIONS);
        if (args.isEmpty() || !args.getFirst().equals("run") || end < 0 || end == args.size() - 1) {
            return Optional.empty();
        }
        for (String arg : args) {
            if (arg.startsWith("@")) {
                return Optional.empty(); // picocli expands an argument file
            }
        }
        RunCommand run = new RunCommand();
        run.sandboxOption = new SandboxOption();
        run.sandboxOption.choice = Sandbox.Choice.AUTO;
        Set<String> seen = new HashSet<>();
        for (int i = 1; i < end; i++) {
            String arg = args.get(i);
            int equals = arg.indexOf('=');
            String name = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
            if (!seen.add(name) && !name.equals("--allow")) {
                return Optional.empty();
            }
            if (FLAGS.contains(name) && name.equals(arg)) {
                run.internet |= name.equals("--internet");
                run.shareTmp |= name.equals("--share-tmp");
                continue;
            }
            if (!VALUED.contains(name)) {
                return Optional.empty();
            }
            String value;
            if (name.equals(arg)) {
                if (i + 1 == end || args.get(i + 1).startsWith("-")) {
                    return Optional.empty();
                }
                value = args.get(++i);
            } else {
                value = arg.substring(equals + 1);
            }
            if (!set(run, name, value)) {
                return Optional.empty();
            }
        }
        run.command = new ArrayList<>(args.subList(end + 1, args.size()));
        return Optional.of(run);
    }

    /** Sets option {@code name} of {@code run}; false where picocli would convert {@code value} otherwise or not at all. */
    private static boolean set(RunCommand run, String name, String value) {
        if (name.equals("--allow")) {
            run.allows.add(value);
            return true;
        }
        if (name.equals("--sandbox")) {
            Optional<Sandbox.Choice> choice = Sandbox.Choice.named(value);
            choice.ifPresent(c -> run.sandboxOption.choice = c);
            return choice.isPresent();
        }
        Path path;
        try {
            path = Path.of(value);
        } catch (InvalidPathException e) {
            return false;
        }
        switch (name) {
            case "--spawn" -> run.spawnFile = Optional.of(path);
            case "--host" -> run.hostFile = Optional.of(path);
            case "--log" -> run.logFile = Optional.of(path);
            case "--dir" -> run.parent = Optional.of(path);
            default -> {
                return false;
            }
        }
        return true;
    }
}
