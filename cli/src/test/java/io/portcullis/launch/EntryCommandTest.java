package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class EntryCommandTest {

    /** Decision D100: the launcher's JVM command line for the entry, run as given, shown as the executable's installation. */
    @Test
    void theLaunchersCommandLineRunsTheEntryWithoutAShell() {
        List<String> prefix =
                List.of("/opt/jdk/bin/java", "-XX:AOTCache=/opt/portcullis/lib/netns-entry.aot", "-cp", "e.jar", "M");
        EntryCommand entry =
                EntryCommand.launched(prefix, Path.of("/opt/portcullis/bin/portcullis"), Path.of("/opt/jdk"));
        List<String> argv = entry.argv(
                Path.of("/tmp/spawn-x/relay.sock"),
                39082,
                List.of(),
                OptionalInt.empty(),
                List.of(),
                3,
                List.of("true"));
        assertEquals(prefix, argv.subList(0, prefix.size()));
        assertEquals("--relay", argv.get(prefix.size()));
        assertEquals(
                EntryCommand.executable(Path.of("/opt/portcullis/bin/portcullis"), Path.of("/opt/jdk"))
                        .installation(),
                entry.installation());
        assertEquals(List.of(Path.of("/opt/portcullis"), Path.of("/opt/jdk")), entry.installation());
    }

    @Test
    void theEntryGetsTheSpawnsPortsTheReadinessDescriptorAndTheCommand() {
        EntryCommand entry = EntryCommand.executable(Path.of("/opt/portcullis/portcullis"), Path.of("/opt/jdk"));
        List<String> argv = entry.argv(
                Path.of("/tmp/spawn-x/relay.sock"),
                39082,
                List.of(5000, 39080),
                OptionalInt.of(3001),
                List.of(new InetSocketAddress(InetAddress.ofLiteral("127.77.0.1"), 5432)),
                3,
                List.of("curl", "-v"));
        assertEquals(
                List.of(
                        "/opt/portcullis/portcullis",
                        "entry",
                        "--relay",
                        "/tmp/spawn-x/relay.sock",
                        "--proxy-port",
                        "39082",
                        "--forward",
                        "5000",
                        "--forward",
                        "39080",
                        "--door",
                        "3001",
                        "--named",
                        "127.77.0.1:5432",
                        "--dns",
                        "--ready-fd",
                        "3",
                        "--",
                        "curl",
                        "-v"),
                argv);
    }

    /** What a sandbox with a /tmp of its own must still show: a checkout's root, a distribution's prefix, the runtime. */
    @Test
    void theInstallationIsTheCheckoutOrTheDistributionsPrefixAndTheRuntime() {
        assertEquals(
                List.of(Path.of("/nonexistent/checkout"), Path.of("/nonexistent/jdk")),
                EntryCommand.executable(Path.of("/nonexistent/checkout/portcullis"), Path.of("/nonexistent/jdk"))
                        .installation());
        assertEquals(
                List.of(Path.of("/nonexistent/prefix"), Path.of("/nonexistent/prefix/lib/portcullis/runtime")),
                EntryCommand.executable(
                                Path.of("/nonexistent/prefix/bin/portcullis"),
                                Path.of("/nonexistent/prefix/lib/portcullis/runtime"))
                        .installation());
        Path javaHome = Path.of(System.getProperty("java.home"));
        List<Path> ofThisJava = EntryCommand.thisJava(javaHome).installation();
        assertEquals(2, ofThisJava.size(), ofThisJava.toString());
        assertTrue(ofThisJava.stream().allMatch(Files::isDirectory), ofThisJava.toString());
    }

    @Test
    void withoutACommandThereIsNothingToRun() {
        EntryCommand entry = EntryCommand.executable(Path.of("portcullis"), Path.of("/opt/jdk"));
        assertThrows(
                IllegalArgumentException.class,
                () -> entry.argv(Path.of("s"), 39080, List.of(), OptionalInt.empty(), List.of(), 3, List.of()));
    }

    @Test
    void thisJavaRunsTheEntrysMainFromAJarThatExists() {
        List<String> prefix =
                EntryCommand.thisJava(Path.of(System.getProperty("java.home"))).prefix();
        assertEquals("io.portcullis.entry.Main", prefix.getLast());
        assertTrue(Files.isExecutable(Path.of(prefix.getFirst())), prefix.toString());
        assertTrue(Files.exists(Path.of(prefix.get(prefix.indexOf("-cp") + 1))), prefix.toString());
    }

    /** Issue 26 (#1): the entry started without the launcher has the launcher's hardening (scripts/launch.sh). */
    @Test
    void thisJavaHasTheLaunchersHardeningOptions() throws IOException {
        String launch = Files.readString(Path.of("..", "scripts", "launch.sh"));
        Matcher line = Pattern.compile("(?m)^jvm_hardening=\\((.*)\\)$").matcher(launch);
        assertTrue(line.find(), "scripts/launch.sh defines jvm_hardening on one line");
        List<String> options = List.of(line.group(1).split(" "));
        assertEquals(options, EntryCommand.JVM_HARDENING);
        List<String> prefix =
                EntryCommand.thisJava(Path.of(System.getProperty("java.home"))).prefix();
        assertTrue(prefix.containsAll(options), prefix.toString());
        assertTrue(prefix.indexOf(options.getLast()) < prefix.indexOf("-cp"), prefix.toString());
    }
}
