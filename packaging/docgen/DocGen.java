import io.portcullis.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Writes the distribution's shell completion and section-1 manual pages from the CLI's picocli
 * model: {@code java -cp CLI_CLASSPATH:TOOLS DocGen.java OUT ENTRY_HELP DOCDIR}, giving
 * {@code OUT/bash-completion/portcullis}, {@code OUT/zsh/_portcullis} and
 * {@code OUT/man1/portcullis*.1}. ENTRY_HELP is the text of {@code portcullis entry --help}: the
 * entry is a program of its own (the netns-entry jar), and its options join the model here
 * ({@link EntryOptions}). DOCDIR is where the installed documentation is: a page's {@code
 * docs/NAME.md} becomes {@code DOCDIR/NAME.md}. picocli writes the bash script and each page as
 * AsciiDoc; Asciidoctor's manpage backend turns the AsciiDoc into troff (decision D42); the zsh
 * script is {@link ZshCompletion}'s (decision D72).
 */
void main(String[] args) throws IOException {
    if (args.length != 3) {
        throw new IllegalArgumentException("args: " + args.length + " (expected: OUT ENTRY_HELP DOCDIR)");
    }
    Path out = Path.of(args[0]);
    String docDir = args[2];
    CommandLine cli = Main.commandLine();
    EntryOptions.addTo(cli.getSubcommands().get("entry").getCommandSpec(), Files.readString(Path.of(args[1])));
    // A synopsis wrapped at 80 columns may break inside a label (ADDRESS:PORT); man wraps it anyway.
    cli.setUsageHelpWidth(200);

    Path bash = out.resolve("bash-completion").resolve("portcullis");
    Files.createDirectories(bash.getParent());
    Files.writeString(bash, AutoComplete.bash("portcullis", cli));
    Path zsh = out.resolve("zsh").resolve("_portcullis");
    Files.createDirectories(zsh.getParent());
    Files.writeString(zsh, installedDocs(ZshCompletion.script(cli), docDir));

    Path adoc = Files.createDirectories(out.resolve("adoc"));
    int status = ManPageGenerator.generateManPage(adoc.toFile(), null, new boolean[0], true, cli.getCommandSpec());
    if (status != 0) {
        throw new IllegalStateException("picocli's ManPageGenerator: exit " + status);
    }
    Path man1 = Files.createDirectories(out.resolve("man1"));
    try (Asciidoctor asciidoctor = Asciidoctor.Factory.create();
            Stream<Path> pages = Files.list(adoc)) {
        Options options = Options.builder()
                .backend("manpage")
                .safe(SafeMode.UNSAFE)
                .toDir(man1.toFile())
                .mkDirs(true)
                .build();
        for (Path page : pages.filter(p -> p.toString().endsWith(".adoc")).sorted().toList()) {
            Files.writeString(page, seeAlso(installedDocs(escapeRoles(Files.readString(page)), docDir), docDir));
            asciidoctor.convertFile(page.toFile(), options);
        }
    }
}

/**
 * In AsciiDoc, {@code [text]} just before {@code _} is a role for the emphasis that follows, so
 * picocli's {@code _HOST:PORT[/http]_} loses its text; an empty attribute between them keeps it.
 */
String escapeRoles(String adoc) {
    return adoc.replace("]_", "]{empty}_");
}

/** A page names the documentation where it is installed: a repository path means nothing there. */
String installedDocs(String adoc, String docDir) {
    return adoc.replaceAll("\\bdocs/([a-z-]+\\.md)", docDir + "/$1");
}

/** Every page ends with the other pages and the documentation's folder. */
String seeAlso(String adoc, String docDir) {
    return adoc.stripTrailing()
            + "\n\n== See Also\n\n*portcullis*(1), *portcullis-spawn.json*(5), *portcullis-host.json*(5); "
            + "the documentation in " + docDir + "/\n";
}
