package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * packaging/Dockerfile built from the distribution tarball, on the glibc base that
 * scripts/ensure-docker.sh makes from this host's files (no base image can be pulled here), and its
 * daemon run with no network at all and the rights operations.md gives it: it runs as its own uid
 * with the systemd unit's three capabilities, starts, prints its ready line and drains on docker
 * stop. Without those rights it says what is missing and runs nothing.
 */
class ContainerImageTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final String BASE = "portcullis-glibc-base:latest";
    private static final String IMAGE =
            "portcullis-image-test:" + ProcessHandle.current().pid();

    /** What docs/operations.md runs the image with: the unit's capabilities and no other. */
    private static final List<String> RIGHTS = List.of(
            "--cap-drop", "ALL", "--cap-add", "SYS_PTRACE", "--cap-add", "DAC_READ_SEARCH", "--cap-add", "CHOWN");

    /** CAP_CHOWN (0), CAP_DAC_READ_SEARCH (2) and CAP_SYS_PTRACE (19), as /proc/PID/status writes a set. */
    private static final String UNIT_CAPABILITIES = "0000000000080005";

    @TempDir
    static Path dir;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(docker("info").exit() == 0, "no Docker engine answers (./run-tests starts one)");
        assumeTrue(docker("image", "inspect", BASE).exit() == 0, BASE + " is missing: run scripts/ensure-docker.sh");
        Path context = Files.createDirectories(dir.resolve("context"));
        Path tarball = installed.tarball();
        Files.copy(tarball, context.resolve(tarball.getFileName()));
        String version = tarball.getFileName()
                .toString()
                .replaceFirst("^portcullis-", "")
                .replaceFirst("-linux-x86_64\\.tar\\.gz$", "");
        Run build = docker(
                "build",
                "-q",
                "--build-arg",
                "BASE=" + BASE,
                "--build-arg",
                "VERSION=" + version,
                "-t",
                IMAGE,
                "-f",
                Portcullis.root().resolve("packaging/Dockerfile").toString(),
                context.toString());
        assertEquals(0, build.exit(), build.toString());
    }

    @AfterAll
    static void removeImage() throws Exception {
        docker("rmi", "-f", IMAGE);
    }

    @Test
    void theImageAnswersVersion() throws Exception {
        Run run = docker(withRights("run", "--rm", "--network", "none", IMAGE, "--version"));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("portcullis 0.1.0\n", run.out());
        assertEquals(
                "portcullis\n",
                docker("image", "inspect", "-f", "{{.Config.User}}", IMAGE).out());
    }

    /**
     * Issue 26 (#15): without the unit's capabilities in its bounding set, or under
     * no-new-privileges (where the runtime's file capabilities do not apply), the image says what
     * is missing and runs nothing.
     */
    @Test
    void withoutItsRightsTheImageSaysWhatIsMissing() throws Exception {
        Run bare = docker("run", "--rm", "--network", "none", IMAGE, "--version");
        assertEquals(2, bare.exit(), bare.toString());
        assertTrue(
                bare.err().contains("--cap-drop ALL --cap-add SYS_PTRACE --cap-add DAC_READ_SEARCH --cap-add CHOWN"),
                bare.toString());
        Run noNewPrivileges = docker(withRights(
                "run", "--rm", "--network", "none", "--security-opt", "no-new-privileges", IMAGE, "--version"));
        assertEquals(2, noNewPrivileges.exit(), noNewPrivileges.toString());
        assertTrue(noNewPrivileges.err().contains("no-new-privileges is set"), noNewPrivileges.toString());
    }

    /**
     * Its daemon starts and drains on docker stop; it runs as the image's own uid, not root, with
     * the unit's three capabilities effective and no other in reach (issue 26, #15).
     */
    @Test
    void itsDaemonRunsAsItsOwnUidWithTheUnitsCapabilitiesAndDrainsOnDockerStop() throws Exception {
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Files.writeString(etc.resolve("host.json"), "{}");
        Run started = docker(withRights("run", "-d", "--network", "none", "-v", etc + ":/etc/portcullis:ro", IMAGE));
        assertEquals(0, started.exit(), started.toString());
        String container = started.out().strip();
        try {
            String logs = "";
            for (int i = 0; i < 300 && !logs.contains("\"control\":\"/run/portcullis/control.sock\""); i++) {
                Thread.sleep(100);
                logs = docker("logs", container).out();
            }
            assertTrue(logs.contains("\"metrics\":\"127.0.0.1:9464\""), logs);
            Map<String, String> status = status(container);
            assertEquals("java", status.get("Name"), status.toString());
            assertEquals("10001\t10001\t10001\t10001", status.get("Uid"), status.toString());
            assertEquals("10001\t10001\t10001\t10001", status.get("Gid"), status.toString());
            assertEquals(UNIT_CAPABILITIES, status.get("CapEff"), status.toString());
            assertEquals(UNIT_CAPABILITIES, status.get("CapPrm"), status.toString());
            assertEquals(UNIT_CAPABILITIES, status.get("CapBnd"), status.toString());
            Run socket = docker("exec", container, "bash", "-c", "[ -O /run/portcullis/control.sock ] && echo ours");
            assertEquals("ours\n", socket.out(), "the control socket is the daemon's uid's: " + socket);
            assertEquals(0, docker("stop", "-t", "30", container).exit());
            assertEquals(
                    "0\n",
                    docker("inspect", "-f", "{{.State.ExitCode}}", container).out());
            assertTrue(docker("logs", container).err().contains("\"message\":\"drained\""));
        } finally {
            docker("rm", "-f", container);
        }
    }

    /**
     * Issue 25 (#13): the image published a port nothing listened on, and had no health check. It
     * publishes none (its metrics listener is on loopback of the network it runs in, the host's),
     * and its HEALTHCHECK asks /healthz wherever the daemon's --metrics-listen put the listener:
     * docker finds the daemon healthy, and unhealthy, saying why, when it serves no /healthz.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "the image's command, '', healthy, 'healthy: GET /healthz on 127.0.0.1:9464 answered HTTP/1.1 200'",
        "another metrics port, '--metrics-listen 9555', healthy, 'healthy: GET /healthz on 9555 answered HTTP/1.1 200'",
        "no metrics listener, '', unhealthy, 'unhealthy: the daemon runs without --metrics-listen'",
    })
    void itsHealthCheckAsksTheDaemonsMetricsListener(String name, String metrics, String health, String says)
            throws Exception {
        Path etc = Files.createDirectories(dir.resolve("etc-" + health + metrics.hashCode()));
        Files.writeString(etc.resolve("host.json"), "{}");
        List<String> argv = new ArrayList<>(List.of(
                "run",
                "-d",
                "--network",
                "none",
                "--health-interval",
                "1s",
                "--health-start-period",
                "1s",
                "-v",
                etc + ":/etc/portcullis:ro",
                IMAGE));
        if (!metrics.isEmpty() || health.equals("unhealthy")) {
            argv.addAll(List.of(
                    "daemon", "--host", "/etc/portcullis/host.json", "--control", "/run/portcullis/control.sock"));
            argv.addAll(metrics.isEmpty() ? List.of() : List.of(metrics.split(" ")));
        }
        Run started = docker(withRights(argv.toArray(String[]::new)));
        assertEquals(0, started.exit(), started.toString());
        String container = started.out().strip();
        try {
            String status = "";
            for (int i = 0; i < 600 && !status.startsWith(health + " "); i++) {
                Thread.sleep(100);
                status = docker(
                                "inspect",
                                "-f",
                                "{{.State.Health.Status}} {{range .State.Health.Log}}{{.Output}}{{end}}",
                                container)
                        .out();
            }
            assertTrue(status.startsWith(health + " ") && status.contains(says), status);
        } finally {
            docker("rm", "-f", container);
        }
    }

    @Test
    void itPublishesNoPortAndChecksItsHealthItself() throws Exception {
        assertEquals(
                "null\n",
                docker("image", "inspect", "-f", "{{json .Config.ExposedPorts}}", IMAGE)
                        .out());
        String check = docker("image", "inspect", "-f", "{{json .Config.Healthcheck}}", IMAGE)
                .out();
        assertTrue(check.contains("/opt/portcullis/lib/portcullis/container-healthcheck"), check);
    }

    /** The container's pid 1 as it sees itself: /proc/1/status, field by field. */
    private static Map<String, String> status(String container) throws Exception {
        Run run = docker("exec", container, "bash", "-c", "echo \"$(</proc/1/status)\"");
        assertEquals(0, run.exit(), run.toString());
        Map<String, String> fields = new LinkedHashMap<>();
        run.out().lines().filter(l -> l.contains(":\t")).forEach(l -> {
            int colon = l.indexOf(":\t");
            fields.put(l.substring(0, colon), l.substring(colon + 2));
        });
        return fields;
    }

    /** {@code docker run} with the rights docs/operations.md gives the image, before the image name. */
    private static String[] withRights(String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        argv.addAll(1, RIGHTS);
        return argv.toArray(String[]::new);
    }

    private static Run docker(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("docker"));
        argv.addAll(List.of(args));
        return Run.of(argv, "", 120);
    }
}
