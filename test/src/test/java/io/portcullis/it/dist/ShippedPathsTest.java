package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 25 (#8): the tarball's manual pages and unit pointed at documentation and an example host
 * file it did not carry. Every path they name under /usr/local, where docs/operations.md unpacks
 * the tarball, is in the unpacked distribution; every other path is the host's or made at run time
 * ({@link NamedPaths#NOT_OURS}); no repository path is named; and every page named is installed.
 */
class ShippedPathsTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final String PREFIX = "/usr/local/";

    @Test
    void everyPathAPageOrTheUnitNamesIsInTheDistributionOrTheHosts() throws Exception {
        List<String> problems = new ArrayList<>();
        List<Path> files = NamedPaths.shippedFiles(installed.prefix());
        assertTrue(files.size() >= 12, files.toString());
        int ours = 0;
        for (Path file : files) {
            NamedPaths named = NamedPaths.in(NamedPaths.text(file));
            String where = installed.prefix().relativize(file).toString();
            for (String path : named.paths()) {
                if (path.startsWith(PREFIX)) {
                    ours++;
                    if (!Files.exists(installed.prefix().resolve(path.substring(PREFIX.length())))) {
                        problems.add(where + " names " + path + ", which the tarball lacks");
                    }
                } else if (!NamedPaths.NOT_OURS.containsKey(path)) {
                    problems.add(where + " names " + path + ", neither the tarball's nor the host's");
                }
            }
            named.repositoryPaths().forEach(path -> problems.add(where + " names the repository's " + path));
            for (String page : named.pages()) {
                if (!Files.exists(installed.prefix().resolve("share/man").resolve(page))) {
                    problems.add(where + " names the page " + page + ", which the tarball lacks");
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(ours >= 10, "the pages name the installed documentation: " + ours);
    }

    /** What the unit and the host page point an operator at, in particular. */
    @Test
    void theDocumentationAndTheExampleFilesAreInstalled() throws Exception {
        Path doc = installed.prefix().resolve("share/doc/portcullis");
        for (String file : List.of(
                "README.md",
                "operations.md",
                "policy.md",
                "daemon.md",
                "entry.md",
                "examples/host.json",
                "examples/spawn.json")) {
            assertTrue(Files.isRegularFile(doc.resolve(file)), file);
        }
        String readme = Files.readString(doc.resolve("README.md"));
        assertTrue(readme.contains("](policy.md)") && !readme.contains("](docs/"), "links beside it");
    }
}
