package io.portcullis.world;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The origins of one site, running as an {@link OriginMain} process inside the site's namespace:
 * HTTP on 80 and 8080, TLS on 443 and 8443, echo on 7, bulk on 9, on every address of the site.
 * Its standard input is its lifeline: it exits when this process closes it or dies.
 */
public final class OriginProcess implements AutoCloseable {
    public static final int HTTP = 80;
    public static final int HTTP_ALT = 8080;
    public static final int TLS = 443;
    public static final int TLS_ALT = 8443;
    public static final int ECHO = 7;
    public static final int BULK = 9;
    private static final long READY_SECONDS = 20;

    private final Process process;

    private OriginProcess(Process process) {
        this.process = process;
    }

    /**
     * Starts the origins named {@code name} in {@code site}'s namespace, recording HTTP requests
     * under {@code records}, and returns once every port listens.
     */
    public static OriginProcess start(World world, Site site, String name, Path records, TlsMaterial tls)
            throws IOException {
        List<String> argv = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-Xmx64m",
                "-cp",
                code().toString(),
                OriginMain.class.getName(),
                "--name",
                name,
                "--dir",
                records.toString(),
                "--http",
                String.valueOf(HTTP),
                "--http",
                String.valueOf(HTTP_ALT),
                "--echo",
                String.valueOf(ECHO),
                "--bulk",
                String.valueOf(BULK),
                "--keystore",
                tls.keystore().toString(),
                "--storepass",
                tls.storepass(),
                "--tls",
                String.valueOf(TLS),
                "--tls",
                String.valueOf(TLS_ALT)));
        Process process = new ProcessBuilder(world.inNamespace(site, argv))
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        records.resolve(name + "-origin.err").toFile()))
                .start();
        OriginProcess origin = new OriginProcess(process);
        try {
            String ready =
                    CompletableFuture.supplyAsync(() -> firstLine(process)).get(READY_SECONDS, TimeUnit.SECONDS);
            if (ready == null || !ready.startsWith("{\"ready\"")) {
                throw new IOException("origin " + name + " did not start (exit "
                        + (process.isAlive() ? "none" : process.exitValue()) + "); see "
                        + records.resolve(name + "-origin.err"));
            }
            return origin;
        } catch (InterruptedException e) {
            origin.close();
            Thread.currentThread().interrupt();
            throw new IOException("origin " + name + ": interrupted while starting", e);
        } catch (ExecutionException | TimeoutException | IOException e) {
            origin.close();
            throw e instanceof IOException io ? io : new IOException("origin " + name + " not ready: " + e, e);
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

    /** Where the origins' code is: the world's jar (or its classes folder in a build), their whole class path. */
    public static Path code() {
        try {
            return Path.of(OriginMain.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stops an origin process whose standard input is its lifeline: closes it and waits, kills it
     * when it lingers. Never throws.
     */
    public static void stop(Process process) {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(3, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Closes the lifeline and waits for the exit; kills the process when it lingers. Never throws. */
    @Override
    public void close() {
        stop(process);
    }
}
