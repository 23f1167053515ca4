package io.portcullis.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

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
