package io.portcullis.it.world;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a subprocess to its end with a deadline, feeding it {@code stdin}; the result holds both outputs. */
public record Run(int exit, String out, String err) {
    public static Run of(List<String> command, String stdin, long timeoutSeconds)
            throws IOException, InterruptedException {
        return of(new ProcessBuilder(command), stdin, timeoutSeconds);
    }

    public static Run of(ProcessBuilder builder, String stdin, long timeoutSeconds)
            throws IOException, InterruptedException {
        Process process = builder.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        try (var in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(
                    builder.command() + ": no exit within " + timeoutSeconds + " s; stderr: " + err.join());
        }
        return new Run(process.exitValue(), out.join(), err.join());
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
