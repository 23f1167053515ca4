package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portcullis.it.world.Run;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 (#13): the .deb that scripts/dist.sh makes, installed with {@code dpkg -i} into a
 * throwaway Debian 13 with systemd running ({@link DebianSystem}): its own runtime answers, its unit
 * starts the daemon as the user it made with the unit's three capabilities, every path its pages
 * and unit name is installed, lintian finds nothing, and {@code dpkg -r} then {@code dpkg -P} leave
 * what decision D70 says and nothing else.
 */
class DebianPackageTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    /** CAP_CHOWN (0), CAP_DAC_READ_SEARCH (2) and CAP_SYS_PTRACE (19), as /proc/PID/status writes a set. */
    private static final String UNIT_CAPABILITIES = "0000000000080005";

    private static final String NAME =
            "portcullis-deb-test-" + ProcessHandle.current().pid();

    /** Exits 0 once the daemon's metrics listener answers GET /healthz with 200. */
    private static final String HEALTHY = "exec 3<>/dev/tcp/127.0.0.1/9464 && printf 'GET /healthz HTTP/1.1\\r\\n"
            + "Host: h\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1.1 200 '";

    @TempDir
    static Path dir;

    private static DebianSystem system;

    @BeforeAll
    static void install() throws Exception {
        assumeTrue(DebianSystem.docker("info").exit() == 0, "no Docker engine answers (./run-tests starts one)");
        DebianSystem.ensureImage();
        system = DebianSystem.boot(NAME);
        Run install = system.install(installed.deb());
        assertEquals(0, install.exit(), install.toString());
    }

    @AfterAll
    static void remove() throws Exception {
        if (system != null) {
            system.close();
        }
    }

    @Test
    void itsCommandRunsOnItsOwnRuntimeWithTheShippedExample() throws Exception {
        Run version = system.exec("command -v portcullis java; portcullis --version");
        assertEquals("/usr/bin/portcullis\nportcullis 0.1.0\n", version.out(), version.toString());
        // Address literals only: the check resolves nothing, and the system has no network.
        // The example's forward 127.0.0.1:5000 asks the owner check (netlink, FFM): nothing listens there.
        Run check = system.exec("portcullis check --spawn /usr/share/doc/portcullis/examples/spawn.json"
                + " --host /etc/portcullis/host.json 10.1.2.3:443 127.0.0.1:5000");
        assertEquals(1, check.exit(), check.toString());
        assertTrue(
                check.out().contains("\"target\":\"10.1.2.3:443\",\"verdict\":\"deny\",\"code\":\"not-global-unicast\"")
                        && check.out()
                                .contains("\"target\":\"127.0.0.1:5000\",\"verdict\":\"deny\",\"code\":\"owner-none\""),
                check.toString());
    }

    /** Decision D70: a system user with no home, shell or password; its group; made once, by postinst. */
    @Test
    void itMadeTheSystemUserPortcullis() throws Exception {
        Run user = system.exec(
                "getent passwd portcullis | cut -d: -f1,6,7; getent group portcullis | cut -d: -f1;"
                        + " getent shadow portcullis | cut -d: -f2; uid=$(id -u portcullis); [ \"$uid\" -lt 1000 ] && echo system");
        assertEquals("portcullis:/nonexistent:/usr/sbin/nologin\nportcullis\n!\nsystem\n", user.out(), user.toString());
    }

    /**
     * The unit as systemd runs it: enabled and started by postinst, as the user portcullis with the
     * three capabilities and no other, its control socket its own, /healthz answered.
     */
    @Test
    void itsUnitRunsTheDaemonAsItsUserWithTheUnitsCapabilities() throws Exception {
        Run healthy = system.await(HEALTHY);
        assertEquals(
                0,
                healthy.exit(),
                system.exec("systemctl status portcullis-daemon; journalctl -u portcullis-daemon")
                        .out());
        assertEquals(
                "enabled\n",
                system.exec("systemctl is-enabled portcullis-daemon").out());
        Run status = system.exec(
                "pid=$(systemctl show -P MainPID portcullis-daemon);"
                        + " grep -E '^(Name|Uid|CapEff|CapPrm|CapBnd):' /proc/$pid/status; stat -c %U /run/portcullis/control.sock");
        String uid = system.exec("id -u portcullis").out().strip();
        assertTrue(status.out().contains("Name:\tjava\n"), status.toString());
        assertTrue(
                status.out().contains("Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"), status.toString());
        for (String set : List.of("CapEff", "CapPrm", "CapBnd")) {
            assertTrue(status.out().contains(set + ":\t" + UNIT_CAPABILITIES + "\n"), status.toString());
        }
        assertTrue(status.out().endsWith("portcullis\n"), status.toString());
        // It also asks man for the pages its Documentation= names.
        Run verify = system.exec("systemd-analyze verify /usr/lib/systemd/system/portcullis-daemon.service 2>&1");
        assertEquals(0, verify.exit(), verify.toString());
        assertEquals("", verify.out(), verify.toString());
    }

    @Test
    void itInstalledItsFilesWhereDebianLooksForThem() throws Exception {
        Run files = system.exec("dpkg -L portcullis");
        for (String file : List.of(
                "/usr/bin/portcullis",
                "/usr/lib/portcullis/runtime/bin/java",
                "/usr/lib/systemd/system/portcullis-daemon.service",
                "/usr/share/man/man1/portcullis.1.gz",
                "/usr/share/man/man1/portcullis-daemon.1.gz",
                "/usr/share/man/man5/portcullis-spawn.json.5.gz",
                "/usr/share/man/man5/portcullis-host.json.5.gz",
                "/usr/share/bash-completion/completions/portcullis",
                "/usr/share/zsh/vendor-completions/_portcullis",
                "/usr/share/doc/portcullis/copyright",
                "/usr/share/doc/portcullis/operations.md",
                "/usr/share/doc/portcullis/examples/host.json",
                "/etc/portcullis/host.json")) {
            assertTrue(files.out().contains("\n" + file + "\n"), file + " in\n" + files.out());
        }
        assertEquals(
                "/etc/portcullis/host.json\n",
                system.exec("dpkg-query -W -f='${Conffiles}' portcullis | cut -d' ' -f2")
                        .out());
    }

    /** Issue 25 (#8), for the .deb: what its pages and unit name is there once it is installed. */
    @Test
    void everyPathItsPagesAndUnitNameIsInstalled() throws Exception {
        Path unpacked = dir.resolve("deb");
        Run extract = Run.of(List.of("dpkg-deb", "-x", installed.deb().toString(), unpacked.toString()), "", 120);
        assertEquals(0, extract.exit(), extract.toString());
        List<String> problems = new ArrayList<>();
        List<Path> files = NamedPaths.shippedFiles(unpacked);
        assertTrue(files.size() >= 12, files.toString());
        for (Path file : files) {
            NamedPaths named = NamedPaths.in(NamedPaths.text(file));
            String where = "/" + unpacked.relativize(file);
            for (String path : named.paths()) {
                if (path.startsWith("/usr/local/")) {
                    problems.add(where + " names the tarball's " + path);
                } else if (!NamedPaths.NOT_OURS.containsKey(path)
                        && system.exec("test -e '" + path + "'").exit() != 0) {
                    problems.add(where + " names " + path + ", which is not installed");
                }
            }
            named.repositoryPaths().forEach(path -> problems.add(where + " names the repository's " + path));
            for (String page : named.pages()) {
                if (system.exec("test -e /usr/share/man/" + page + ".gz").exit() != 0) {
                    problems.add(where + " names the page " + page + ", which is not installed");
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    /** lintian, where it is installed (.ci/run installs it), with the overrides the package ships and explains. */
    @Test
    void lintianFindsNothing() throws Exception {
        assumeTrue(Run.of(List.of("sh", "-c", "command -v lintian"), "", 10).exit() == 0, "lintian is not installed");
        Run run = Run.of(
                List.of("lintian", "--tag-display-limit", "0", installed.deb().toString()), "", 300);
        List<String> tags =
                run.out().lines().filter(line -> line.matches("^[EWIPX]: .*")).toList();
        assertEquals(List.of(), tags, run.toString());
        assertEquals(0, run.exit(), run.toString());
    }

    /**
     * Decision D70: {@code dpkg -r} stops the daemon and removes the program, keeping what is the
     * administrator's (the configuration, the decision log, the user); {@code dpkg -P} then removes
     * the configuration, the log folder and the unit's enablement, and keeps the user, expired.
     */
    @Test
    void removeKeepsTheConfigurationAndTheUserPurgeKeepsOnlyTheUserExpired() throws Exception {
        try (DebianSystem other = DebianSystem.boot(NAME + "-remove")) {
            assertEquals(0, other.install(installed.deb()).exit());
            assertEquals(0, other.await(HEALTHY).exit(), "the daemon did not start");
            other.exec("echo '{\"decision\":1}' >/var/log/portcullis/decisions.jsonl");

            Run remove = other.exec("dpkg -r portcullis");
            assertEquals(0, remove.exit(), remove.toString());
            Run left = other.exec(
                    "systemctl is-active portcullis-daemon; for f in /usr/bin/portcullis /usr/lib/portcullis"
                            + " /usr/lib/systemd/system/portcullis-daemon.service /etc/portcullis/host.json"
                            + " /var/log/portcullis/decisions.jsonl; do [ -e $f ] && echo \"kept $f\"; done;"
                            + " getent passwd portcullis | cut -d: -f1; dpkg-query -W -f='${db:Status-Status}\\n' portcullis");
            assertEquals(
                    "inactive\nkept /etc/portcullis/host.json\nkept /var/log/portcullis/decisions.jsonl\n"
                            + "portcullis\nconfig-files\n",
                    left.out(),
                    left.toString());

            Run purge = other.exec("dpkg -P portcullis");
            assertEquals(0, purge.exit(), purge.toString());
            Run after = other.exec("for f in /etc/portcullis /var/log/portcullis /var/lib/portcullis"
                    + " /etc/systemd/system/multi-user.target.wants/portcullis-daemon.service; do"
                    + " [ -e $f ] || [ -L $f ] && echo \"left $f\"; done; getent passwd portcullis | cut -d: -f1;"
                    + " getent shadow portcullis | cut -d: -f8; dpkg-query -W portcullis 2>/dev/null || echo gone");
            assertEquals("portcullis\n1\ngone\n", after.out(), after.toString());
            assertFalse(after.out().contains("left"), after.toString());
        }
    }
}
