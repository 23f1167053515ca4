package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The manual pages and the bash completion that picocli wrote for the distribution (SPEC R43). */
class ManPagesAndCompletionTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final List<String> COMMANDS = List.of("run", "demo", "check", "owner", "relay", "daemon", "entry");

    private Path completion() {
        return installed.prefix().resolve("share/bash-completion/completions/portcullis");
    }

    private Path page(String name) {
        return installed.prefix().resolve("share/man/man1").resolve(name + ".1");
    }

    @Test
    void theCompletionScriptIsBash() throws Exception {
        Run run = Run.of(installed.command(List.of("bash", "-n", completion().toString())), "", 10);
        assertEquals(0, run.exit(), run.toString());
    }

    /** What bash would offer after {@code line}, as the completion function computes it. */
    private String complete(String line) throws Exception {
        String script = "source '" + completion() + "'; read -ra COMP_WORDS <<< \"$1\"; "
                + "[[ $1 == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); "
                + "COMP_LINE=$1; COMP_POINT=${#1}; _complete_portcullis 2>/dev/null; echo \"${COMPREPLY[*]}\"";
        Run run = Run.of(installed.command(List.of("bash", "-c", script, "complete", line)), "", 10);
        assertEquals(0, run.exit(), run.toString());
        return run.out().strip();
    }

    @Test
    void everyCommandIsCompleted() throws Exception {
        List<String> offered = List.of(complete("portcullis ").split(" "));
        assertTrue(offered.containsAll(COMMANDS), offered.toString());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "portcullis dae, daemon",
        "portcullis daemon --metrics-, --metrics-listen",
        "portcullis run --sand, --sandbox",
        "portcullis run --share, --share-tmp",
        "portcullis relay --dr, --drain",
    })
    void aPrefixCompletesToTheOneItNames(String line, String expected) throws Exception {
        assertEquals(expected, complete(line));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"run", "demo", "check", "owner", "relay", "daemon", "entry"})
    void everyCommandHasAManualPage(String command) throws Exception {
        Path page = page("portcullis-" + command);
        String troff = Files.readString(page);
        assertTrue(troff.contains("\n.TH \"PORTCULLIS\\-" + command.toUpperCase() + "\" \"1\""), troff);
        String text = render(page);
        assertTrue(text.contains("portcullis " + command), text);
        assertTrue(text.contains("-h, --help"), text);
    }

    @Test
    void theTopPageNamesEveryCommand() throws Exception {
        String text = render(page("portcullis"));
        for (String command : COMMANDS) {
            assertTrue(text.contains("\n       " + command + "\n"), command + " in\n" + text);
        }
    }

    /** A synopsis keeps every option's label whole (AsciiDoc would read {@code [/http]_} as a role). */
    @Test
    void theSynopsisOfRunShowsItsAllowOption() throws Exception {
        assertTrue(render(page("portcullis-run")).contains("[--allow=HOST:PORT[/http]]... CMD..."));
        assertTrue(render(page("portcullis-daemon")).contains("[--metrics-listen=ADDRESS:PORT]"));
    }

    /** Issue 26: run's page says how to give the command the host's /tmp. */
    @Test
    void theRunPageNamesShareTmp() throws Exception {
        String text = render(page("portcullis-run"));
        assertTrue(text.contains("[--share-tmp]") && text.contains("Give the command this host"), text);
    }

    /** The page as groff renders it for a terminal; any warning of groff's fails the test. */
    private String render(Path page) throws Exception {
        Run run = Run.of(
                installed.command(List.of("groff", "-man", "-Tutf8", "-ww", "-rLL=200n", page.toString())), "", 30);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.err(), run.toString());
        return run.out().replaceAll(".\b", "");
    }
}
