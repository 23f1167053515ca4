package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portcullis.it.world.Run;
import io.portcullis.owner.testing.PythonListener;
import io.portcullis.relay.policy.HostConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The daemon's systemd unit as the distribution ships it: systemd accepts every line of it, it
 * starts the installed executable with options the daemon takes, its capabilities are the ones
 * the owner check needs, and it keeps what docs/operations.md promises. It is not started here (no
 * systemd runs these tests).
 */
class SystemdUnitTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    /** The listener's owner, and the uid the daemon runs as here (the unit's user is made on install). */
    private static final int LISTENER_UID = 4100;

    private static final String DAEMON_UID = "65534";

    /** Where docs/operations.md installs the tarball, and so where the unit looks for it. */
    private static final String INSTALLED = "/usr/local/bin/portcullis";

    @TempDir
    Path dir;

    private String unit() throws Exception {
        return Files.readString(installed.prefix().resolve("lib/systemd/system/portcullis-daemon.service"));
    }

    /** Every {@code Key=value} of the unit (the last one wins, as in systemd). */
    private Map<String, String> settings() throws Exception {
        return unit().lines()
                .filter(line -> line.matches("^[A-Za-z]+=.*"))
                .collect(Collectors.toMap(
                        line -> line.substring(0, line.indexOf('=')),
                        line -> line.substring(line.indexOf('=') + 1),
                        (first, last) -> last));
    }

    @Test
    void systemdAnalyzeVerifiesTheUnitInstalledInThisPrefix() throws Exception {
        Run which = Run.of(installed.command(List.of("sh", "-c", "command -v systemd-analyze")), "", 10);
        assumeTrue(which.exit() == 0, "systemd-analyze is not installed (Debian package systemd)");
        Path unit = dir.resolve("portcullis-daemon.service");
        Files.writeString(
                unit,
                unit().replace(
                                INSTALLED,
                                installed.prefix().resolve("bin/portcullis").toString()));
        ProcessBuilder verify = installed.command(List.of("systemd-analyze", "verify", unit.toString()));
        verify.environment()
                .put("MANPATH", installed.prefix().resolve("share/man").toString());
        Run run = Run.of(verify, "", 60);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", sinceSystemd254(run.err() + run.out()), "systemd-analyze found nothing to say");
    }

    /**
     * What systemd-analyze says, less the one line a systemd before 254 says of the unit:
     * FileDescriptorStorePreserve= came with 254 (an older one ignores it, and a stop then empties
     * the descriptor store: docs/operations.md). DebianPackageTest verifies the unit under 257,
     * where nothing is left out.
     */
    private static String sinceSystemd254(String said) throws Exception {
        Run version = Run.of(List.of("systemd-analyze", "--version"), "", 10);
        String[] words = version.out().split("\\s+", 3);
        if (words.length > 1 && words[1].matches("[0-9]+") && Integer.parseInt(words[1]) >= 254) {
            return said;
        }
        return said.lines()
                .filter(line -> !line.endsWith(
                        ": Unknown key 'FileDescriptorStorePreserve' in section [Service]," + " ignoring."))
                .map(line -> line + "\n")
                .collect(Collectors.joining());
    }

    @Test
    void itStartsTheInstalledDaemonWithOptionsTheDaemonTakes() throws Exception {
        List<String> exec = Arrays.asList(settings().get("ExecStart").split(" "));
        assertEquals(List.of(INSTALLED, "daemon"), exec.subList(0, 2));
        assertTrue(Files.isExecutable(installed.prefix().resolve("bin/portcullis")));
        Run help = installed.run(List.of("daemon", "--help"));
        assertEquals(0, help.exit(), help.toString());
        exec.stream()
                .filter(word -> word.startsWith("--"))
                .forEach(option -> assertTrue(help.out().contains(option + "="), option + " in\n" + help.out()));
        assertTrue(exec.contains("/run/portcullis/control.sock"), exec.toString());
    }

    @Test
    void itKeepsWhatTheOperationsPagePromises() throws Exception {
        Map<String, String> settings = settings();
        assertEquals("strict", settings.get("ProtectSystem"));
        assertEquals("yes", settings.get("NoNewPrivileges"));
        assertEquals("portcullis", settings.get("RuntimeDirectory"));
        assertEquals("0711", settings.get("RuntimeDirectoryMode"));
        assertEquals("CAP_SYS_PTRACE CAP_DAC_READ_SEARCH CAP_CHOWN", settings.get("CapabilityBoundingSet"));
        assertEquals(settings.get("CapabilityBoundingSet"), settings.get("AmbientCapabilities"));
        assertEquals("/bin/kill -HUP $MAINPID", settings.get("ExecReload"));
        // Spawns outlive the process (SPEC R44): the daemon speaks sd_notify and keeps them in the
        // descriptor store and the state directory, which last as long as the runtime directory.
        assertEquals("notify", settings.get("Type"));
        assertEquals("main", settings.get("NotifyAccess"));
        assertEquals("portcullis", settings.get("StateDirectory"));
        assertEquals("0700", settings.get("StateDirectoryMode"));
        assertEquals("4096", settings.get("FileDescriptorStoreMax"));
        assertEquals("yes", settings.get("FileDescriptorStorePreserve"));
        assertEquals("yes", settings.get("RuntimeDirectoryPreserve"));
        assertEquals("on-failure", settings.get("Restart"));
    }

    /**
     * The unit's capabilities are what the owner check needs to see another user's process: run as
     * a third uid with the unit's ambient capabilities, {@code portcullis owner} maps the gateway
     * user's listener to the process that holds it; with either of the two /proc rights left out,
     * it cannot read that process's descriptors.
     */
    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"nothing", "CAP_SYS_PTRACE", "CAP_DAC_READ_SEARCH"})
    void theOwnerCheckSeesAnotherUsersProcessWithTheUnitsCapabilitiesOnly(String without) throws Exception {
        List<String> capabilities = Arrays.stream(
                        settings().get("AmbientCapabilities").split(" "))
                .filter(capability -> !capability.equals(without))
                .toList();
        Path folder = PythonListener.openFolder("portcullis-unit-caps-");
        Path host = folder.resolve("host.json");
        Files.writeString(host, "{\"owner\": {\"gatewayUid\": " + LISTENER_UID + "}}");
        Files.setPosixFilePermissions(host, PosixFilePermissions.fromString("rw-r--r--"));
        try (PythonListener listener =
                PythonListener.v4("127.0.0.1").uid(LISTENER_UID).cwd(folder).start()) {
            String setpriv = capabilities.stream()
                    .map(capability ->
                            "+" + capability.substring("CAP_".length()).toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining(","));
            List<String> argv = new ArrayList<>(List.of(
                    "setpriv",
                    "--reuid",
                    DAEMON_UID,
                    "--regid",
                    DAEMON_UID,
                    "--clear-groups",
                    "--inh-caps",
                    setpriv,
                    "--ambient-caps",
                    setpriv));
            argv.addAll(installed
                    .portcullis(List.of(
                            "owner", "--spawn", "add-on", "--host", host.toString(), "127.0.0.1:" + listener.port()))
                    .command());
            Run run = Run.of(installed.command(argv), "", 60);
            boolean mapped = run.out().contains("\"processes\":[{\"pid\":" + listener.pid() + ",");
            if (without.equals("nothing")) {
                assertTrue(mapped && run.out().contains("\"verdict\":\"allow\""), run.toString());
            } else {
                assertFalse(mapped, run.toString());
                assertTrue(run.out().contains("cannot read the fds of process " + listener.pid()), run.toString());
            }
        } finally {
            Files.deleteIfExists(host);
            Files.deleteIfExists(folder);
        }
    }

    /**
     * The relay's descriptor budget: two per connection of the default relay budget, plus its 512 in
     * reserve and the 2 x 32 connections of the control socket and the metrics listener.
     */
    @Test
    void itsDescriptorLimitIsWhatTheDefaultBudgetNeeds() throws Exception {
        long needed = 2L * HostConfig.Limits.DEFAULTS.relayConnections() + 512 + 64;
        assertEquals(String.valueOf(needed), settings().get("LimitNOFILE"));
    }

    /** Longer than the drain it asks for, or systemd kills the daemon mid-drain. */
    @Test
    void itWaitsLongerThanTheDrain() throws Exception {
        List<String> exec = List.of(settings().get("ExecStart").split(" "));
        int drain = Integer.parseInt(exec.get(exec.indexOf("--drain") + 1));
        assertTrue(
                Integer.parseInt(settings().get("TimeoutStopSec")) >= drain + 5,
                settings().toString());
    }
}
