package io.portcullis.launch;

import io.portcullis.world.OriginMain;
import io.portcullis.world.OriginProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP service on the demo namespace's loopback, run as a process of {@code uid} (setpriv), so
 * that the owner check sees a socket of that uid held by a process that is not the relay. It runs
 * from a copy of the origin's jar in a folder of that uid's, since the checkout may be closed to
 * it; its standard input is its lifeline.
 */
final class DemoService implements AutoCloseable {
    private static final long READY_SECONDS = 20;
    private static final Pattern PORT = Pattern.compile("\"ports\":\\[(\\d+)]");

    private final Process process;
    private final Path dir;
    private final int port;
    private final int uid;

    private DemoService(Process process, Path dir, int port, int uid) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.uid = uid;
    }

    /** Starts the service named {@code name} as {@code uid} and returns once it listens. */
    static DemoService start(String name, int uid) throws IOException {
        Path dir = Files.createTempDirectory("portcullis-demo-" + name + "-");
        Process process = null;
        try {
            Path jar = Files.copy(codeSource(), dir.resolve("origin.jar"));
            Path records = Files.createDirectory(dir.resolve("records"));
            for (Path path : List.of(dir, jar, records)) {
                Files.setAttribute(path, "unix:uid", uid);
                Files.setAttribute(path, "unix:gid", uid);
            }
            List<String> argv = new ArrayList<>(List.of(
                    "setpriv",
                    "--reuid",
                    String.valueOf(uid),
                    "--regid",
                    String.valueOf(uid),
                    "--clear-groups",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-Xshare:auto",
                    "-Xmx32m",
                    "-cp",
                    jar.toString(),
                    OriginMain.class.getName(),
                    "--name",
                    name,
                    "--dir",
                    records.toString(),
                    "--http",
                    "0"));
            process = new ProcessBuilder(argv)
                    .directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            Process started = process;
            String ready =
                    CompletableFuture.supplyAsync(() -> firstLine(started)).get(READY_SECONDS, TimeUnit.SECONDS);
            Matcher port = PORT.matcher(ready == null ? "" : ready);
            if (!port.find()) {
                throw new IOException("the demo's service of uid " + uid + " did not start (exit "
                        + (process.isAlive() ? "none" : process.exitValue()) + ")");
            }
            return new DemoService(process, dir, Integer.parseInt(port.group(1)), uid);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(process, dir);
            throw new IOException("the demo's service of uid " + uid + ": interrupted while starting", e);
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            stop(process, dir);
            throw e instanceof IOException io ? io : new IOException("the demo's service of uid " + uid + ": " + e, e);
        }
    }

    int port() {
        return port;
    }

    int uid() {
        return uid;
    }

    @Override
    public void close() {
        stop(process, dir);
    }

    /** @param process null when it did not start */
    private static void stop(@Nullable Process process, Path dir) {
        if (process != null) {
            OriginProcess.stop(process);
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // A leftover folder holds a copy of the origin's jar only.
        }
    }

    private static String firstLine(Process process) {
        try {
            return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path codeSource() throws IOException {
        Path source = OriginProcess.code();
        if (!Files.isRegularFile(source)) {
            throw new IOException("the origin's code is not a jar: " + source + " (expected: the world's jar)");
        }
        return source;
    }
}
