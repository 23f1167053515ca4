package io.portcullis.bench.daemon;

import io.portcullis.relay.SpawnHandle;
import io.portcullis.wire.Handoff;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link TunnelPeer} in a child JVM on this process's class path: one command line out, one
 * answer line back, each within a deadline. {@link #close()} kills it; a shutdown hook kills it
 * when this JVM exits another way, and the child exits by itself when its input ends (this JVM
 * killed outright) or its lifetime is over.
 */
final class PeerProcess implements AutoCloseable {
    private static final String EOF = "\0eof";
    private final String role;
    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    private final Thread hook;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private PeerProcess(String role, Process process) {
        this.role = role;
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.hook = new Thread(process::destroyForcibly, "kill-" + role);
        Runtime.getRuntime().addShutdownHook(hook);
        Thread.ofPlatform().daemon().name("read-" + role).start(this::readLines);
    }

    /** Starts {@code TunnelPeer ARGS...} with a small heap; its standard error goes to ours. */
    static PeerProcess start(String... args) throws IOException {
        return start(Optional.empty(), args);
    }

    /**
     * As {@link #start(String...)}, for a peer that plays {@code spawn}'s entry: it gets the spawn's
     * hand-over key in its environment, as an entry does.
     */
    static PeerProcess entry(SpawnHandle spawn, String... args) throws IOException {
        return start(Optional.of(spawn.handoffKey()), args);
    }

    private static PeerProcess start(Optional<String> key, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow(() -> new IOException("no path to java"));
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                TunnelPeer.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        key.ifPresent(text -> builder.environment().put(Handoff.Key.ENVIRONMENT, text));
        Process process = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new PeerProcess(args[0], process);
    }

    long pid() {
        return process.pid();
    }

    /** Sends one command and returns the answer line, or throws when none comes within {@code limit}. */
    String ask(String command, Duration limit) throws IOException, InterruptedException {
        in.write(command + "\n");
        in.flush();
        return answer(limit);
    }

    /** Reads the next answer line, or throws when none comes within {@code limit}. */
    String answer(Duration limit) throws IOException, InterruptedException {
        String line = lines.poll(limit.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null || line.equals(EOF)) {
            throw new IOException(role + ": no answer within " + limit + " (alive: " + process.isAlive() + ")");
        }
        return line;
    }

    private void readLines() {
        try {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException e) {
            // The child is gone; answer() reports it.
        }
        lines.add(EOF);
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook runs too, harmlessly.
        }
    }
}
