package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A throwaway Debian 13 system: a container of {@code portcullis-debian:trixie} (made once by
 * scripts/ensure-debian.sh with debootstrap, cached by its tag) with systemd as its pid 1, no
 * network but its own loopback, and the capabilities the daemon's unit gives it, so the .deb's
 * scripts see a running systemd and the unit really starts. Closing removes the container.
 */
final class DebianSystem implements AutoCloseable {
    static final String IMAGE = "portcullis-debian:trixie";

    private static final long IMAGE_SECONDS = 1500;

    private final String name;

    private DebianSystem(String name) {
        this.name = name;
    }

    /** Makes the image when this machine lacks it (minutes, once), or says why it cannot. */
    static void ensureImage() throws Exception {
        Run run = Run.of(
                List.of(Portcullis.root().resolve("scripts/ensure-debian.sh").toString()), "", IMAGE_SECONDS);
        assertEquals(0, run.exit(), "scripts/ensure-debian.sh: " + run);
    }

    /** Boots one, waiting (at most 60 s) until systemd says it is up. */
    static DebianSystem boot(String name) throws Exception {
        docker("rm", "-f", name);
        Run started = docker(
                "run",
                "-d",
                "-t",
                "--name",
                name,
                "--hostname",
                "debian-test",
                "--network",
                "none",
                "--cgroupns=private",
                "--cap-add",
                "SYS_ADMIN",
                "--cap-add",
                "NET_ADMIN",
                // The unit's two capabilities beyond Docker's default set (CAP_CHOWN is in it).
                "--cap-add",
                "SYS_PTRACE",
                "--cap-add",
                "DAC_READ_SEARCH",
                "--tmpfs",
                "/run",
                "--tmpfs",
                "/run/lock",
                "--stop-signal",
                "SIGRTMIN+3",
                IMAGE);
        assertEquals(0, started.exit(), started.toString());
        DebianSystem system = new DebianSystem(name);
        String state = "";
        for (int i = 0; i < 120 && !state.equals("running") && !state.equals("degraded"); i++) {
            Thread.sleep(500);
            state = system.exec("systemctl is-system-running 2>/dev/null").out().strip();
        }
        if (!state.equals("running") && !state.equals("degraded")) {
            String logs = docker("logs", name).out();
            system.close();
            throw new AssertionError("systemd did not come up in " + name + " (" + state + "):\n" + logs);
        }
        return system;
    }

    /** Copies the .deb in and installs it with {@code dpkg -i}. */
    Run install(Path deb) throws Exception {
        // Not /tmp: systemd mounts a fresh tmpfs there, over what docker cp would write.
        Run copy = docker("cp", deb.toString(), name + ":/var/tmp/portcullis.deb");
        assertEquals(0, copy.exit(), copy.toString());
        return exec("dpkg -i /var/tmp/portcullis.deb");
    }

    /** Copies {@code from} (a file or a folder) to {@code to} in the system; not under /tmp, which systemd mounts over. */
    void copy(Path from, String to) throws Exception {
        Run copy = docker("cp", from.toString(), name + ":" + to);
        assertEquals(0, copy.exit(), copy.toString());
    }

    /** {@code bash -c script} in the system, as root. */
    Run exec(String script) throws Exception {
        return docker("exec", name, "bash", "-c", script);
    }

    /** Waits, at most 60 s, until {@code script} exits 0 in the system; the last run. */
    Run await(String script) throws Exception {
        Run run = exec(script);
        for (int i = 0; i < 120 && run.exit() != 0; i++) {
            Thread.sleep(500);
            run = exec(script);
        }
        return run;
    }

    @Override
    public void close() throws IOException {
        try {
            docker("rm", "-f", name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while removing the container " + name, e);
        }
    }

    static Run docker(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("docker"));
        argv.addAll(List.of(args));
        return Run.of(argv, "", 180);
    }
}
