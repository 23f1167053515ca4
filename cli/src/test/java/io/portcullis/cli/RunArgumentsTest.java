package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Decision D100: run's plain arguments read without picocli, exactly as picocli reads them, and the rest left to it. */
class RunArgumentsTest {
    /** What picocli fills in from {@code args}, with the command line that Main builds, as RunCommand's fields. */
    private static List<Object> byPicocli(List<String> args) {
        CommandLine cli = Main.commandLine();
        cli.parseArgs(args.toArray(String[]::new));
        return fields(cli.getSubcommands().get("run").getCommand());
    }

    private static List<Object> fields(RunCommand run) {
        return List.of(
                run.spawnFile,
                run.hostFile,
                run.internet,
                run.allows,
                run.logFile,
                run.parent,
                run.sandboxOption.choice,
                run.shareTmp,
                run.command);
    }

    private static List<String> words(String line) {
        return Arrays.asList(line.split(" "));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "run -- true",
                "run -- sh -c exit",
                "run --internet -- curl -x x https://example.test",
                "run --allow a.test:443 --allow b.test:80/http --allow=c.test:22 -- true",
                "run --spawn s.json --host h.json --log l.jsonl --dir /tmp -- true",
                "run --spawn=s.json --host=h.json --log=l.jsonl --dir=/tmp -- true",
                "run --sandbox unshare --share-tmp -- true",
                "run --sandbox=BWRAP -- true",
                "run --sandbox Auto --internet --share-tmp -- a -- b --help",
                "run --allow= -- true",
                "run --dir=a=b -- true",
                "run -- --internet",
                "run -- -h",
            })
    void plainArgumentsAreReadAsPicocliReadsThem(String line) {
        List<String> args = words(line);
        Optional<RunCommand> plain = RunArguments.read(args);
        assertTrue(plain.isPresent(), line);
        assertEquals(byPicocli(args), fields(plain.get()), line);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "run",
                "run true",
                "run --",
                "run --internet --",
                "run --help -- true",
                "run -h -- true",
                "run --version -- true",
                "run --intenet -- true",
                "run --spawn a --spawn b -- true",
                "run --internet --internet -- true",
                "run --internet=true -- true",
                "run --spawn -- true",
                "run --spawn --internet -- true",
                "run --allow -x -- true",
                "run --sandbox docker -- true",
                "run --dir @args -- true",
                "run -- cat @file",
                "demo -- true",
                "check -- true",
            })
    void anythingElseIsLeftToPicocli(String line) {
        assertEquals(Optional.empty(), RunArguments.read(words(line)), line);
    }

    @Test
    void aPathWithANulIsLeftToPicocli() {
        assertEquals(Optional.empty(), RunArguments.read(List.of("run", "--dir", "a\0b", "--", "true")));
    }

    /**
     * A new option of run, or a way of reading one that RunArguments does not share (a split, an
     * arity beyond one value, a converter, a default, a negation), fails here until RunArguments
     * reads it so too.
     */
    @Test
    void theOptionsAreRunsOptionsReadAsRunArgumentsReadsThem() {
        CommandLine run = Main.commandLine().getSubcommands().get("run");
        Set<String> valued = new HashSet<>();
        Set<String> flags = new HashSet<>();
        for (OptionSpec option : run.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            String name = option.longestName();
            boolean sandbox = name.equals("--sandbox");
            assertEquals(1, option.names().length, name);
            assertEquals(option.arity().min(), option.arity().max(), name);
            assertTrue(option.arity().max() <= 1, name);
            assertEquals("", option.splitRegex(), name);
            assertFalse(option.negatable(), name);
            assertFalse(option.interactive(), name);
            assertEquals(sandbox ? 1 : 0, option.converters().length, name);
            assertEquals(sandbox ? "auto" : null, option.defaultValue(), name);
            (option.arity().max() == 0 ? flags : valued).add(name);
        }
        assertEquals(RunArguments.VALUED, valued);
        assertEquals(RunArguments.FLAGS, flags);
        assertEquals(1, run.getCommandSpec().positionalParameters().size());
        assertEquals(
                "1..*",
                run.getCommandSpec().positionalParameters().getFirst().arity().toString());
    }

    /** The plain path runs the command as picocli's does: a problem named on stderr and status 2. */
    @Test
    void thePlainPathTellsProblemsAsPicocliDoes() {
        CliRun plain = CliRun.of("", "run", "--spawn", "/nonexistent/spawn.json", "--", "true");
        CliRun viaPicocli = CliRun.of("", "run", "--spawn", "/nonexistent/spawn.json", "true");
        assertEquals(2, plain.status(), plain.err());
        assertEquals(viaPicocli.status(), plain.status());
        assertEquals(viaPicocli.err(), plain.err());
    }
}
