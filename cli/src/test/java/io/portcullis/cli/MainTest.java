package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;

/** The top level of {@code portcullis}: version, help and usage errors, in-process. */
class MainTest {
    static CliRun run(String... args) {
        return CliRun.of("", args);
    }

    @ParameterizedTest(name = "{0} --version")
    @ValueSource(strings = {"run", "demo", "check", "owner", "relay", "daemon", "entry"})
    void everySubcommandAnswersVersionLikeTheTopLevel(String command) {
        CliRun top = run("--version");
        CliRun sub = run(command, "--version");
        assertEquals(0, sub.status(), sub.err());
        assertEquals("portcullis 0.1.0", top.out().strip());
        assertEquals(top.out(), sub.out());
    }

    @Test
    void theHelpListsEntry() {
        CliRun help = run("--help");
        assertTrue(help.out().lines().anyMatch(l -> l.strip().startsWith("entry ")), help.out());
    }

    /** Decision D75: the top level lists the subcommands from their annotations alone, as the whole model would. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--help", "-h", "help", ""})
    void theTopLevelHelpIsTheWholeModelsHelp(String args) {
        StringWriter whole = new StringWriter();
        Main.commandLine().usage(new PrintWriter(whole, true));
        CliRun help = args.isEmpty() ? run() : run(args);
        assertEquals(0, help.status(), help.err());
        assertEquals(whole.toString(), help.out());
    }

    @ParameterizedTest(name = "help {0}")
    @ValueSource(strings = {"run", "check", "daemon"})
    void helpOfASubcommandIsItsOwnHelp(String command) {
        CliRun help = run("help", command);
        CliRun own = run(command, "--help");
        assertEquals(0, help.status(), help.err());
        assertTrue(own.out().startsWith("Usage: portcullis " + command + " "), own.out());
        assertEquals(own.out(), help.out());
    }

    /** Decision D75: the help texts in the jar are what the model renders, in both of picocli's colour modes. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Ansi.class,
            names = {"OFF", "ON"})
    void theHelpTextsOfTheBuildAreTheModels(Ansi ansi) throws IOException {
        Map<String, String> rendered = Usage.rendered(ansi);
        assertEquals(8, rendered.size(), rendered.keySet().toString());
        for (Map.Entry<String, String> text : rendered.entrySet()) {
            String file = "usage/" + text.getKey() + (ansi == Ansi.ON ? ".ansi" : ".txt");
            try (InputStream in = Usage.class.getResourceAsStream(file)) {
                assertNotNull(in, file);
                assertEquals(text.getValue(), new String(in.readAllBytes(), StandardCharsets.UTF_8), file);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-V", "--version", "help --version", "bogus --version", "run --help extra", "help bogus"})
    void whatTheTextsDoNotAnswerTheCommandLineDoes(String args) {
        CliRun texts = run(args.split(" "));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine model = Main.commandLine();
        model.setOut(new PrintWriter(out, true));
        model.setErr(new PrintWriter(err, true));
        int status = model.execute(args.split(" "));
        assertEquals(status == 0 ? 0 : 2, texts.status(), texts.err());
        assertEquals(out.toString(), texts.out());
    }

    @Test
    void aSubcommandNamedAfterTheSeparatorIsOnlyAnArgument() {
        CliRun run = run("run", "--dir", "/no/such/dir", "--", "check", "check");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("--dir: /no/such/dir"), run.err());
    }

    /**
     * Decision D75: {@code portcullis --help} initialises no class of Jackson, Netty, docker-java or
     * the engine, nor picocli's model (a fresh JVM, without an AOT cache, so that what loads is what
     * the help needs).
     */
    @Test
    void theTopLevelHelpLoadsNoneOfWhatTheCommandsUse() throws IOException, InterruptedException {
        Process java = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xshare:auto",
                        "-Xlog:class+init=info:stdout",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "--help")
                .redirectErrorStream(true)
                .start();
        java.getOutputStream().close();
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(java.waitFor(60, TimeUnit.SECONDS), "portcullis --help did not end");
        assertEquals(0, java.exitValue(), out);
        assertTrue(out.contains("Usage: portcullis"), out);
        List<String> heavy = out.lines()
                .filter(line -> line.matches(".* Initializing '(com/fasterxml/|io/netty/|com/github/dockerjava/"
                        + "|io/portcullis/relay/|io/portcullis/launch/|org/slf4j/|picocli/CommandLine\\$Model).*"))
                .toList();
        assertTrue(
                heavy.isEmpty(),
                heavy.size() + " initialised, the first: " + heavy.subList(0, Math.min(3, heavy.size())));
    }

    @Test
    void entryReachedHereSaysHowItRuns() {
        CliRun entry = run("entry");
        assertEquals(2, entry.status());
        assertTrue(entry.err().contains("./portcullis executable"), entry.err());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "relay --spawn s.json --no-such-option | portcullis relay: Unknown option: '--no-such-option'",
                "run --sandbox firejail -- true | "
                        + "portcullis run: Invalid value for option '--sandbox': 'firejail' (expected: auto, bwrap, unshare)",
                "bogus | portcullis: Unmatched argument at index 0: 'bogus'"
            })
    void aUsageErrorIsTheProblemAndAPointerNotTheWholeHelp(String args, String first) {
        CliRun run = run(args.split(" "));
        assertEquals(2, run.status());
        assertTrue(run.err().startsWith(first), run.err());
        assertFalse(run.err().contains("Usage:"), run.err());
        String command = first.substring(0, first.indexOf(':'));
        assertTrue(run.err().strip().endsWith("see '" + command + " --help'"), run.err());
        assertEquals("", run.out());
    }

    @ParameterizedTest(name = "--sandbox {0}")
    @ValueSource(strings = {"BWRAP", "Unshare", "auto"})
    void theSandboxIsAcceptedInAnyCase(String kind) {
        CliRun run = run("run", "--sandbox", kind, "--dir", "/no/such/dir", "--", "true");
        assertEquals(2, run.status());
        assertFalse(run.err().contains("Invalid value"), run.err());
        assertTrue(run.err().contains("--dir: /no/such/dir"), run.err());
    }
}
