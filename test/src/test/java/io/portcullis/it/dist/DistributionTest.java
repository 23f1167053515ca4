package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.Run;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC R43's distribution on this machine as on a host with no JDK and no Maven: installed into a
 * fresh prefix, run with a PATH that has neither and no JAVA_HOME. The run's traffic stays on
 * loopback: its one forward has nothing listening behind it, and its proxied name is refused before
 * any lookup.
 */
class DistributionTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    @TempDir
    Path dir;

    @Test
    void theCommandsSeeNoJavaAndNoMaven() throws Exception {
        Run run = Run.of(
                installed.command(List.of("sh", "-c", "command -v java mvn javac; echo JAVA_HOME=$JAVA_HOME")), "", 10);
        assertEquals("JAVA_HOME=\n", run.out(), run.toString());
    }

    @Test
    void versionAnswersOnTheDistributionsOwnRuntime() throws Exception {
        Run run = installed.run(List.of("--version"));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("portcullis 0.1.0\n", run.out(), run.toString());
        Run entry = installed.run(List.of("entry", "--version"));
        assertEquals(0, entry.exit(), entry.toString());
        assertEquals("portcullis 0.1.0\n", entry.out(), entry.toString());
    }

    @Test
    void runGivesTheCommandsStatusAndTheRefusalsThePolicyGives() throws Exception {
        int port = freeLoopbackPort();
        Path host = dir.resolve("host.json");
        // A name server where nothing answers, on loopback: no lookup leaves this machine whatever happens.
        Files.writeString(host, "{\"dns\": {\"servers\": [\"127.0.0.1:9\"], \"timeoutMillis\": 500}}");
        Path log = dir.resolve("decisions.jsonl");
        String script = "curl -sS --max-time 10 http://127.0.0.1:" + port + "/; echo forward=$?; "
                + "curl -sS --max-time 10 -o /dev/null https://not-listed.example.test/; echo proxy=$?; exit 7";
        Run run = installed.run(List.of(
                "run",
                "--host",
                host.toString(),
                "--allow",
                "127.0.0.1:" + port,
                "--log",
                log.toString(),
                "--",
                "/bin/sh",
                "-c",
                script));
        assertEquals(7, run.exit(), run.toString());
        // curl: 52 is an empty reply (the forward closed), 56 a CONNECT answered 403.
        assertTrue(run.out().contains("forward=52\n") && run.out().contains("proxy=56\n"), run.toString());
        String decisions = Files.readString(log);
        assertTrue(
                decisions.contains("\"target\":\"forward:" + port + "\"")
                        && decisions.contains("\"code\":\"owner-none\""),
                decisions);
        assertTrue(
                decisions.contains("\"target\":\"not-listed.example.test:443\"")
                        && decisions.contains("\"code\":\"not-listed\""),
                decisions);
    }

    /** The entry's AOT cache was trained by the runtime beside it and still maps after the move to this prefix. */
    @Test
    void theEntrysStartUpCacheIsUsableWhereItWasInstalled() throws Exception {
        Path home = installed.prefix().resolve("lib/portcullis");
        Run run = Run.of(
                installed.command(List.of(
                        home.resolve("runtime/bin/java").toString(),
                        "-XX:AOTMode=on",
                        "-XX:AOTCache=" + home.resolve("netns-entry.aot"),
                        "-XX:+DisableAttachMechanism",
                        "-XX:-EnableDynamicAgentLoading",
                        "-XX:-UsePerfData",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Xss256k",
                        "-Xms8m",
                        "-Xmx32m",
                        "-XX:ReservedCodeCacheSize=16m",
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        home.resolve("netns-entry.jar").toString(),
                        "io.portcullis.entry.Main",
                        "--version")),
                "",
                30);
        assertEquals(0, run.exit(), run.toString());
        assertFalse(run.err().contains("AOT"), run.err());
    }

    /**
     * Decision D74: the command line's AOT cache was trained by the runtime beside it, on the class
     * path of the jar's manifest, and maps after the move to this prefix.
     */
    @Test
    void theCommandLinesStartUpCacheIsUsableWhereItWasInstalled() throws Exception {
        Path home = installed.prefix().resolve("lib/portcullis");
        assertTrue(Files.size(home.resolve("portcullis.aot")) > 0);
        Run run = Run.of(
                installed.command(List.of(
                        home.resolve("runtime/bin/java").toString(),
                        "-XX:AOTMode=on",
                        "-XX:AOTCache=" + home.resolve("portcullis.aot"),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "--enable-native-access=ALL-UNNAMED",
                        "-XX:+DisableAttachMechanism",
                        "-XX:-EnableDynamicAgentLoading",
                        "-XX:-UsePerfData",
                        "-cp",
                        home.resolve("portcullis.jar").toString(),
                        "io.portcullis.cli.Main",
                        "--version")),
                "",
                30);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("portcullis 0.1.0\n", run.out(), run.toString());
        assertEquals("", run.err(), run.toString());
    }

    /**
     * Decision D74: a run prints the same with the command line's cache, without it (-Xshare:off,
     * which the JVM refuses beside a cache, so the launcher gives none) and with a damaged one (a
     * copy of this installation whose cache is cut in half): the cache changes how long a start
     * takes and nothing else.
     */
    @Test
    void aRunPrintsTheSameWithItsCacheWithoutItAndWithADamagedOne() throws Exception {
        Path copy = dir.resolve("copy");
        Run copied = Run.of(List.of("cp", "-a", installed.prefix().toString(), copy.toString()), "", 120);
        assertEquals(0, copied.exit(), copied.toString());
        Path cache = copy.resolve("lib/portcullis/portcullis.aot");
        try (FileChannel file = FileChannel.open(cache, StandardOpenOption.WRITE)) {
            file.truncate(file.size() / 2);
        }
        Path host = dir.resolve("host.json");
        Files.writeString(host, "{\"dns\": {\"servers\": [\"127.0.0.1:9\"], \"timeoutMillis\": 500}}");
        List<String> args =
                List.of("run", "--host", host.toString(), "--", "/bin/sh", "-c", "echo out; echo err >&2; exit 3");

        Run cached = installed.run(args);
        ProcessBuilder uncached = installed.portcullis(args);
        uncached.environment().put("PORTCULLIS_JAVA_OPTS", "-Xshare:off");
        Run without = Run.of(uncached, "", 60);
        List<String> damagedArgv =
                new ArrayList<>(List.of(copy.resolve("bin/portcullis").toString()));
        damagedArgv.addAll(args);
        Run damaged = Run.of(installed.command(damagedArgv), "", 60);

        for (Run run : List.of(cached, without, damaged)) {
            assertEquals(3, run.exit(), run.toString());
            assertEquals("out\n", run.out(), run.toString());
            assertFalse(
                    Pattern.compile("aot|cds|shared (archive|class)", Pattern.CASE_INSENSITIVE)
                            .matcher(run.err())
                            .find(),
                    run.err());
        }
        assertEquals(withoutTimes(cached.err()), withoutTimes(without.err()));
        assertEquals(withoutTimes(cached.err()), withoutTimes(damaged.err()));
    }

    /** The operational log's lines with their time left out, which is all that differs from run to run. */
    private static String withoutTimes(String err) {
        return err.replaceAll("\"time\":\"[^\"]*\"", "\"time\":\"\"");
    }

    /**
     * The demo loads what the other commands do and more (the resolver, TLS, docker-java, origins
     * started with this runtime's java), so a module missing from the runtime shows here. Its world
     * lives in namespaces with no route out.
     */
    @Test
    void theDemoRunsOnTheDistributionsRuntime() throws Exception {
        Run run = Run.of(installed.portcullis(List.of("demo")), "", 120);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("HTTP 200"), run.out());
        assertFalse(run.err().contains("Exception") || run.err().contains("Error:"), run.err());
    }

    /** Issue 25 (#13): SHA256SUMS beside the artefacts names each of them, and sha256sum -c agrees. */
    @Test
    void theChecksumsBesideTheArtefactsMatchThem() throws Exception {
        Path folder = installed.tarball().getParent();
        String sums = Files.readString(folder.resolve("SHA256SUMS"));
        for (Path artefact : List.of(installed.tarball(), installed.deb())) {
            assertTrue(
                    sums.matches("(?s)(.*\\n)?[0-9a-f]{64}  "
                            + Pattern.quote(artefact.getFileName().toString()) + "\n.*"),
                    sums);
        }
        ProcessBuilder check =
                new ProcessBuilder("sha256sum", "--check", "--strict", "SHA256SUMS").directory(folder.toFile());
        Run run = Run.of(check, "", 60);
        assertEquals(0, run.exit(), run.toString());
        assertEquals(2, run.out().lines().filter(line -> line.endsWith(": OK")).count(), run.toString());
    }

    /**
     * Issue 25 (#14): the runtime holds the modules Portcullis uses and no other: those jdeps finds
     * less java.desktop (decision D72), and jdk.net and jdk.naming.dns (D40). A new dependency that
     * needs another module fails here first; decide, then add it.
     */
    @Test
    void theRuntimeHoldsOnlyTheModulesPortcullisUses() throws Exception {
        Run run = Run.of(
                installed.command(List.of(
                        installed
                                .prefix()
                                .resolve("lib/portcullis/runtime/bin/java")
                                .toString(),
                        "--list-modules")),
                "",
                30);
        assertEquals(0, run.exit(), run.toString());
        List<String> modules =
                run.out().lines().map(line -> line.replaceFirst("@.*", "")).toList();
        assertEquals(
                List.of(
                        "java.base",
                        "java.logging",
                        "java.management",
                        "java.naming",
                        "java.security.jgss",
                        "java.security.sasl",
                        "java.sql",
                        "java.transaction.xa",
                        "java.xml",
                        "jdk.jfr",
                        "jdk.management",
                        "jdk.naming.dns",
                        "jdk.net",
                        "jdk.unsupported"),
                modules);
    }

    private static int freeLoopbackPort() throws Exception {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
