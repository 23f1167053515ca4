package io.portcullis.it.dist;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The distribution installed as docs/operations.md says ({@code tar -xzf TARBALL -C PREFIX
 * --strip-components=1}) into a fresh prefix, once per test run, removed when the run ends. The
 * tarball is {@code -Dportcullis.dist=TARBALL} when given, else built by {@code scripts/dist.sh}.
 * Its commands run with an environment of their own: no {@code JAVA_HOME}, and a {@code PATH} that
 * holds the host's programs but no {@code java}, no JDK tool and no {@code mvn}.
 *
 * <pre>{@code @RegisterExtension static final Installation installed = Installation.create();}</pre>
 */
final class Installation implements BeforeAllCallback {
    /** Left out of the PATH the installed commands see. */
    private static final Set<String> JDK_AND_MAVEN = Set.of(
            "java", "javac", "jar", "jlink", "jdeps", "jpackage", "jshell", "jcmd", "jrunscript", "mvn", "mvnDebug");

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(Installation.class);
    private static final long BUILD_MINUTES = 15;

    private Parts parts;

    private Installation() {}

    static Installation create() {
        return new Installation();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        parts = context.getRoot().getStore(STORE).computeIfAbsent(Parts.class, k -> Parts.install(), Parts.class);
    }

    /** The prefix the tarball was unpacked into. */
    Path prefix() {
        return parts.prefix;
    }

    Path tarball() {
        return parts.tarball;
    }

    /** The .deb that scripts/dist.sh made beside the tarball. */
    Path deb() throws IOException {
        try (Stream<Path> files = Files.list(parts.tarball.getParent())) {
            return files.filter(f -> f.getFileName().toString().matches("portcullis_.*_amd64\\.deb"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no .deb beside " + parts.tarball));
        }
    }

    /** The folder that is the installed commands' whole PATH. */
    Path path() {
        return parts.path;
    }

    /** {@code PREFIX/bin/portcullis args...} in the installed commands' environment, ready to start. */
    ProcessBuilder portcullis(List<String> args) {
        List<String> argv =
                new ArrayList<>(List.of(prefix().resolve("bin/portcullis").toString()));
        argv.addAll(args);
        return command(argv);
    }

    /** Runs {@code PREFIX/bin/portcullis args...} to its end. */
    Run run(List<String> args) throws IOException, InterruptedException {
        return Run.of(portcullis(args), "", 60);
    }

    /** {@code argv} in the installed commands' environment: PATH, HOME and LANG, nothing else. */
    ProcessBuilder command(List<String> argv) {
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().clear();
        builder.environment().put("PATH", path().toString());
        builder.environment().put("HOME", parts.dir.toString());
        builder.environment().put("LANG", "C.UTF-8");
        return builder;
    }

    /** One installation; closing removes it and never throws. */
    private static final class Parts implements AutoCloseable {
        Path dir;
        Path tarball;
        Path prefix;
        Path path;

        static Parts install() {
            Parts parts = new Parts();
            try {
                // Readable by every uid, as under /usr/local: a test runs the installed commands as another user.
                parts.dir = Files.createTempDirectory(
                        "portcullis-dist-test-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
                parts.tarball = tarball(parts.dir);
                parts.prefix = Files.createDirectories(parts.dir.resolve("prefix"));
                unpack(parts.tarball, parts.prefix);
                parts.path = pathWithoutJdk(Files.createDirectories(parts.dir.resolve("path")));
                return parts;
            } catch (IOException | InterruptedException | RuntimeException e) {
                parts.close();
                throw new IllegalStateException("the distribution could not be installed: " + e.getMessage(), e);
            }
        }

        private static Path tarball(Path dir) throws IOException, InterruptedException {
            String given = System.getProperty("portcullis.dist");
            if (given != null && !given.isBlank()) {
                return Path.of(given);
            }
            Path out = dir.resolve("dist");
            Path log = dir.resolve("dist.log");
            Process build = new ProcessBuilder(
                            Portcullis.root().resolve("scripts/dist.sh").toString(), out.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!build.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
                build.destroyForcibly().waitFor();
                throw new IllegalStateException("scripts/dist.sh: no exit within " + BUILD_MINUTES + " minutes");
            }
            if (build.exitValue() != 0) {
                throw new IllegalStateException(
                        "scripts/dist.sh: exit " + build.exitValue() + "\n" + Files.readString(log));
            }
            try (Stream<Path> files = Files.list(out)) {
                return files.filter(f -> f.getFileName().toString().endsWith("-linux-x86_64.tar.gz"))
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException("scripts/dist.sh made no tarball in " + out));
            }
        }

        private static void unpack(Path tarball, Path prefix) throws IOException, InterruptedException {
            Run run = Run.of(
                    List.of("tar", "-xzf", tarball.toString(), "-C", prefix.toString(), "--strip-components=1"),
                    "",
                    120);
            if (run.exit() != 0) {
                throw new IllegalStateException("tar: " + run);
            }
        }

        /** A folder of links to every program on this PATH but the JDK's and Maven's. */
        private static Path pathWithoutJdk(Path dir) throws IOException {
            for (String folder :
                    System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                Path from = Path.of(folder.isEmpty() ? "." : folder);
                if (!Files.isDirectory(from)) {
                    continue;
                }
                try (Stream<Path> programs = Files.list(from)) {
                    for (Path program : programs.toList()) {
                        Path link = dir.resolve(program.getFileName().toString());
                        if (!JDK_AND_MAVEN.contains(link.getFileName().toString())
                                && Files.isExecutable(program)
                                && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                            Files.createSymbolicLink(link, program.toAbsolutePath());
                        }
                    }
                }
            }
            return dir;
        }

        @Override
        public void close() {
            if (dir == null) {
                return;
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // Best effort: a temporary folder left behind does no harm.
            }
        }
    }
}
