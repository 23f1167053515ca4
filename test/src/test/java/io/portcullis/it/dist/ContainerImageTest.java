package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * packaging/Dockerfile built from the distribution tarball, on the glibc base that
 * scripts/ensure-docker.sh makes from this host's files (no base image can be pulled here), and its
 * daemon run with no network at all: it starts, prints its ready line and drains on docker stop.
 */
class ContainerImageTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final String BASE = "portcullis-glibc-base:latest";
    private static final String IMAGE =
            "portcullis-image-test:" + ProcessHandle.current().pid();

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
        Run run = docker("run", "--rm", "--network", "none", IMAGE, "--version");
        assertEquals(0, run.exit(), run.toString());
        assertEquals("portcullis 0.1.0\n", run.out());
    }

    @Test
    void itsDaemonStartsAndDrainsOnDockerStop() throws Exception {
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Files.writeString(etc.resolve("host.json"), "{}");
        Run started = docker("run", "-d", "--network", "none", "-v", etc + ":/etc/portcullis:ro", IMAGE);
        assertEquals(0, started.exit(), started.toString());
        String container = started.out().strip();
        try {
            String logs = "";
            for (int i = 0; i < 300 && !logs.contains("\"control\":\"/run/portcullis/control.sock\""); i++) {
                Thread.sleep(100);
                logs = docker("logs", container).out();
            }
            assertTrue(logs.contains("\"metrics\":\"127.0.0.1:9464\""), logs);
            assertEquals(0, docker("stop", "-t", "30", container).exit());
            assertEquals(
                    "0\n",
                    docker("inspect", "-f", "{{.State.ExitCode}}", container).out());
            assertTrue(docker("logs", container).err().contains("\"message\":\"drained\""));
        } finally {
            docker("rm", "-f", container);
        }
    }

    private static Run docker(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("docker"));
        argv.addAll(List.of(args));
        return Run.of(argv, "", 120);
    }
}
