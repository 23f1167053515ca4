package io.portcullis.world;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs short system commands ({@code ip}, {@code keytool}) and fails loudly with their output. */
final class Commands {
    private static final long TIMEOUT_SECONDS = 30;

    private Commands() {}

    /** Runs {@code argv} to completion and returns its standard output; a non-zero exit is an exception. */
    static String run(List<String> argv) throws IOException {
        Process process = new ProcessBuilder(argv)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        String out = drain(process.getInputStream());
        try {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", argv) + ": no exit within " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", argv) + ": interrupted", e);
        }
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + ": exit " + process.exitValue() + ": "
                    + err.join().strip());
        }
        return out;
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
