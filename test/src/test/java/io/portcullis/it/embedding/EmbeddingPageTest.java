package io.portcullis.it.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25 (#10): the embedding page's example had no imports and no Maven coordinates, and the JVM
 * it described printed native-access warnings. The page's dependency is the relay's own, its Java
 * block compiles as a file against the relay's jar on the module path (so it uses only what the
 * module exports), and each of its command lines runs it without a warning of the JVM's. The jars
 * are the distribution's (cli/target/lib: the relay and what it needs, and the applications' few
 * more).
 */
class EmbeddingPageTest {
    private static final Pattern BLOCK = Pattern.compile("(?s)```(\\w+)\\n(.*?)```");

    @TempDir
    static Path dir;

    private static String page;
    private static Path classes;

    @BeforeAll
    static void compile() throws Exception {
        page = Files.readString(Portcullis.root().resolve("docs/embedding.md"));
        Path source = dir.resolve("src/Launcher.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, block("java"));
        classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter out = new StringWriter();
        boolean compiled = javac.getTask(
                        out,
                        null,
                        null,
                        List.of(
                                "-Xlint:all",
                                "-Werror",
                                "--module-path",
                                lib().toString(),
                                "--add-modules",
                                "io.portcullis.relay",
                                "-d",
                                classes.toString()),
                        null,
                        javac.getStandardFileManager(null, null, null).getJavaFileObjects(source))
                .call();
        assertTrue(compiled, "docs/embedding.md's Java does not compile:\n" + out);
    }

    @Test
    void theDependencyIsTheRelaysOwnCoordinates() throws Exception {
        String xml = block("xml");
        String relayPom = Files.readString(Portcullis.root().resolve("relay/pom.xml"));
        String parentPom = Files.readString(Portcullis.root().resolve("pom.xml"));
        assertEquals(first("<groupId>(.*)</groupId>", parentPom), first("<groupId>(.*)</groupId>", xml));
        assertEquals("relay", first("(?m)^  <artifactId>(.*)</artifactId>", relayPom));
        assertEquals("relay", first("<artifactId>(.*)</artifactId>", xml));
        assertEquals(first("(?m)^  <version>(.*)</version>", parentPom), first("<version>(.*)</version>", xml));
    }

    /** The page's two command lines (class path, module path), each run as written but for the paths. */
    @ParameterizedTest(name = "the {0} command")
    @ValueSource(strings = {"-cp 'launcher.jar:lib/*'", "-p lib"})
    void itRunsWithThePagesCommandLineAndNoWarning(String which) throws Exception {
        String command = commands().stream()
                .filter(c -> c.contains(which))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no command with " + which + " in the page"));
        Path host = Files.writeString(dir.resolve("host.json"), "{}");
        Path spawn = Files.writeString(dir.resolve("spawn.json"), "{\"id\": \"embedded-page\"}");
        List<String> argv = new ArrayList<>();
        for (String word : command.split("\\s+")) {
            argv.add(
                    switch (word.replace("'", "")) {
                        case "java" ->
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString();
                        case "launcher.jar:lib/*" -> classes + ":" + lib() + "/*";
                        case "launcher.jar" -> classes.toString();
                        case "lib" -> lib().toString();
                        case "host.json" -> host.toString();
                        case "spawn.json" -> spawn.toString();
                        default -> word;
                    });
        }
        ProcessBuilder builder = new ProcessBuilder(argv);
        // Where the spawn's directory goes (the system's temporary directory): this test's own.
        builder.environment().put("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + dir);
        Run run = Run.of(builder, "", 120);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains(" proxy port 39080\n"), run.toString());
        List<String> warnings =
                run.err().lines().filter(line -> line.startsWith("WARNING:")).toList();
        assertEquals(List.of(), warnings, run.err());
        try (Stream<Path> left = Files.list(dir)) {
            assertTrue(left.noneMatch(p -> p.getFileName().toString().startsWith("spawn-embedded-page-")));
        }
    }

    /** The page's shell block, each command on one line, comments left out. */
    private static List<String> commands() {
        String shell = block("sh").replace("\\\n", " ");
        return shell.lines().filter(line -> line.startsWith("java ")).toList();
    }

    /** The page's one block of {@code language}. */
    private static String block(String language) {
        List<String> found = new ArrayList<>();
        Matcher block = BLOCK.matcher(page);
        while (block.find()) {
            if (block.group(1).equals(language)) {
                found.add(block.group(2));
            }
        }
        assertEquals(1, found.size(), "```" + language + " blocks in docs/embedding.md");
        return found.getFirst();
    }

    private static String first(String regex, String text) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex);
        return matcher.group(1);
    }

    private static Path lib() {
        return Portcullis.root().resolve("cli/target/lib");
    }
}
