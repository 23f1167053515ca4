package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manual pages and the shell completion of the distribution (SPEC R43): section 1 from the
 * command line's model, section 5 for the two JSON formats, and bash's and zsh's completion, asked
 * of real bash and real zsh for every option that each command's own {@code --help} lists.
 */
class ManPagesAndCompletionTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final List<String> COMMANDS = List.of("run", "demo", "check", "owner", "relay", "daemon", "entry");

    /** An option as a command's help lists it: picocli's {@code "  -h, --help"} and {@code "      --spawn=FILE"}, the entry's {@code "  --relay SOCK"}. */
    private static final Pattern HELP_OPTION =
            Pattern.compile("(?m)^(?: {2}(-\\w), (--[a-z][\\w-]*)| {2}(?: {4})?(--[a-z][\\w-]*))");

    private Path completion() {
        return installed.prefix().resolve("share/bash-completion/completions/portcullis");
    }

    private Path page(String name) {
        return installed.prefix().resolve("share/man/man1").resolve(name + ".1");
    }

    private Path zshFolder() {
        return installed.prefix().resolve("share/zsh/site-functions");
    }

    private static final Map<String, List<String>> HELP_OPTIONS = new ConcurrentHashMap<>();

    /** Every option name that {@code portcullis COMMAND --help} lists (asked once per command). */
    private static List<String> optionsInHelp(String command) throws Exception {
        List<String> known = HELP_OPTIONS.get(command);
        if (known != null) {
            return known;
        }
        Run help = installed.run(List.of(command, "--help"));
        assertEquals(0, help.exit(), help.toString());
        List<String> names = new ArrayList<>();
        Matcher option = HELP_OPTION.matcher(help.out());
        while (option.find()) {
            for (int group = 1; group <= option.groupCount(); group++) {
                if (option.group(group) != null) {
                    names.add(option.group(group));
                }
            }
        }
        assertTrue(names.contains("--help"), command + " --help lists no --help:\n" + help.out());
        HELP_OPTIONS.put(command, names);
        return names;
    }

    /** What zsh's completion offers after {@code line}, with the installed function in $fpath. */
    private List<String> zsh(String line) throws Exception {
        Path harness = Portcullis.root().resolve("test/src/test/resources/io/portcullis/it/dist/zsh-complete.zsh");
        Run run = Run.of(
                installed.command(
                        List.of("zsh", "-f", harness.toString(), zshFolder().toString(), line)),
                "",
                30);
        assertEquals(0, run.exit(), run.toString());
        return run.out().lines().toList();
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

    /** Issue 25 (#13): the entry's own options were missing, being another program's. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"run", "demo", "check", "owner", "relay", "daemon", "entry"})
    void bashCompletesEveryOptionTheCommandsHelpLists(String command) throws Exception {
        List<String> offered = List.of(complete("portcullis " + command + " -").split(" "));
        List<String> listed = optionsInHelp(command);
        assertTrue(offered.containsAll(listed), "help lists " + listed + ", bash offers " + offered);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"run", "demo", "check", "owner", "relay", "daemon", "entry"})
    void zshCompletesEveryOptionTheCommandsHelpLists(String command) throws Exception {
        List<String> offered = zsh("portcullis " + command + " -");
        List<String> listed = optionsInHelp(command);
        assertTrue(offered.containsAll(listed), "help lists " + listed + ", zsh offers " + offered);
    }

    @Test
    void zshCompletesEveryCommand() throws Exception {
        assertTrue(zsh("portcullis ").containsAll(COMMANDS));
        assertEquals(List.of("daemon"), zsh("portcullis dae"));
        assertTrue(zsh("portcullis help ").containsAll(COMMANDS));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "'portcullis daemon --log-level ', debug error info warn",
        "'portcullis run --sandbox ', auto bwrap unshare",
        "'portcullis entry --prox', --proxy-port",
        "'portcullis relay --metrics-e', --metrics-every",
    })
    void zshCompletesTheValuesTheCommandsTake(String line, String expected) throws Exception {
        assertEquals(List.of(expected.split(" ")), zsh(line));
    }

    /** Where Debian's zsh looks for a site's completion functions under /usr/local. */
    @Test
    void theZshFunctionIsWhereZshLooksUnderThePrefix() throws Exception {
        String zshFunction = Files.readString(zshFolder().resolve("_portcullis"));
        assertTrue(zshFunction.startsWith("#compdef portcullis\n"), zshFunction);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "portcullis dae, daemon",
        "portcullis daemon --metrics-, --metrics-listen",
        "portcullis daemon --upg, --upgrade",
        "portcullis run --sand, --sandbox",
        "portcullis run --share, --share-tmp",
        "portcullis relay --dr, --drain",
        "portcullis entry --rel, --relay",
        "portcullis daemon --log-level d, debug",
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

    /** Issue 24: the daemon's page names --upgrade and the route a successor asks. */
    @Test
    void theDaemonPageNamesUpgrade() throws Exception {
        String text = render(page("portcullis-daemon"));
        assertTrue(text.contains("[--upgrade]") && text.contains("POST /upgrade"), text);
    }

    /** Issue 26: run's page says how to give the command the host's /tmp. */
    @Test
    void theRunPageNamesShareTmp() throws Exception {
        String text = render(page("portcullis-run"));
        assertTrue(text.contains("[--share-tmp]") && text.contains("Give the command this host"), text);
    }

    /** Issue 25 (#13): the two JSON formats have section-5 pages, named by every page that takes them. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"portcullis-spawn.json", "portcullis-host.json"})
    void theJsonFormatsHaveSectionFivePages(String name) throws Exception {
        Path page = installed.prefix().resolve("share/man/man5").resolve(name + ".5");
        String text = render(page);
        assertTrue(text.contains("FIELDS") && text.contains("EXAMPLES"), text);
        for (String command : List.of("run", "check", "daemon")) {
            assertTrue(render(page("portcullis-" + command)).contains(name + "(5)"), command);
        }
    }

    /** The entry's page lists the entry's own options (they come from its --help). */
    @Test
    void theEntrysPageListsItsOptions() throws Exception {
        String text = render(page("portcullis-entry"));
        for (String option : optionsInHelp("entry")) {
            assertTrue(text.contains(option), option + " in\n" + text);
        }
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
