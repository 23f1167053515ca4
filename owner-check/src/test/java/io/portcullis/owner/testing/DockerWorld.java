package io.portcullis.owner.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real containers of the image {@code portcullis-busybox:latest} (made by the build's
 * {@code scripts/ensure-docker.sh} when missing), each labelled with this run's id and removed after
 * the test class, on every path. Images are never pulled.
 */
public final class DockerWorld implements BeforeAllCallback, AfterAllCallback {
    public static final String IMAGE = "portcullis-busybox:latest";
    public static final String ENDPOINT = "unix:///var/run/docker.sock";
    private static final String RUN_LABEL = "io.portcullis.test.run";

    private final String run = UUID.randomUUID().toString();

    @Override
    public void beforeAll(ExtensionContext context) {
        Path script = findScript();
        exec(List.of("bash", script.toString()), 120);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        String ids = exec(List.of("docker", "ps", "-aq", "--filter", "label=" + RUN_LABEL + "=" + run), 30)
                .strip();
        if (!ids.isEmpty()) {
            List<String> command = new ArrayList<>(List.of("docker", "rm", "-f"));
            command.addAll(List.of(ids.split("\\s+")));
            exec(command, 60);
        }
    }

    /** A running container serving HTTP on its port 80, published on 127.0.0.1 at a free host port when asked. */
    public Container start(Map<String, String> labels, boolean publish) {
        List<String> command =
                new ArrayList<>(List.of("docker", "run", "-d", "--pull", "never", "-l", RUN_LABEL + "=" + run));
        labels.forEach((k, v) -> command.addAll(List.of("-l", k + "=" + v)));
        int port = publish ? freePort() : 0;
        if (publish) {
            command.addAll(List.of("-p", "127.0.0.1:" + port + ":80"));
        }
        command.addAll(List.of(IMAGE, "httpd", "-f", "-p", "80"));
        String id = exec(command, 60).strip();
        String address = exec(
                        List.of(
                                "docker",
                                "inspect",
                                "-f",
                                "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                                id),
                        30)
                .strip();
        return new Container(id, port, InetAddress.ofLiteral(address));
    }

    public void stop(Container container) {
        exec(List.of("docker", "rm", "-f", container.id()), 60);
    }

    /** One started container: its id, the published host port (0: none), its bridge address. */
    public record Container(String id, int port, InetAddress address) {}

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path findScript() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("scripts/ensure-docker.sh");
            if (Files.isRegularFile(script)) {
                return script;
            }
        }
        throw new IllegalStateException(
                "scripts/ensure-docker.sh not found above " + Path.of("").toAbsolutePath());
    }

    private static String exec(List<String> command, int seconds) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out;
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(command + " exited " + p.exitValue() + ": " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
