import io.portcullis.cli.Main;
import java.io.File;
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
 * Writes the distribution's bash completion and manual pages from the CLI's picocli model:
 * {@code java -cp RELAY_CLASSPATH:TOOLS DocGen.java OUT}, giving {@code OUT/bash-completion/portcullis}
 * and {@code OUT/man1/portcullis*.1}. picocli writes the completion script and each page as
 * AsciiDoc; Asciidoctor's manpage backend turns the AsciiDoc into troff (decision D42).
 */
void main(String[] args) throws IOException {
    if (args.length != 1) {
        throw new IllegalArgumentException("args: " + args.length + " (expected: OUT, one folder)");
    }
    Path out = Path.of(args[0]);
    CommandLine cli = Main.commandLine();
    // A synopsis wrapped at 80 columns may break inside a label (ADDRESS:PORT); man wraps it anyway.
    cli.setUsageHelpWidth(200);

    Path completion = out.resolve("bash-completion").resolve("portcullis");
    Files.createDirectories(completion.getParent());
    Files.writeString(completion, AutoComplete.bash("portcullis", cli));

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
            Files.writeString(page, escapeRoles(Files.readString(page)));
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
