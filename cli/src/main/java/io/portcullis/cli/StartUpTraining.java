package io.portcullis.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The training run of the CLI's AOT cache (JEP 483, 514, 515; scripts/launch.sh's {@code train_cli},
 * decision D74): one JVM runs what people and services start most, so that the cache holds their
 * classes, loaded and linked, and the profiles of their methods. In order: every command's help and
 * the version; {@code check} of literal targets (nothing is resolved); {@code relay} of one spawn
 * whose lifeline closes at once; {@code run -- true}; a daemon that answers each route of its control
 * socket and its metrics listener once and is then stopped as SIGTERM stops it ({@code System.exit}
 * runs its drain and its exit). What a step cannot do here (no user namespaces, no Docker) is only
 * missing from the cache. Nothing is dialed but this run's own sockets.
 */
final class StartUpTraining {
    private static final long STEP_SECONDS = 60;
    private static final Pattern METRICS = Pattern.compile("\"metrics\":\"([0-9.]+):([0-9]+)\"");
    /** A listed host, a forward, a plain HTTP one: the spawn shapes the relay and the daemon open. */
    private static final String SPAWN = """
            {"id": "%s", "network": "internet", "hosts": [
              {"target": "db.example.test:5432", "scheme": "tcp"},
              {"target": "printer.example.test:80", "scheme": "http"},
              {"target": "127.0.0.1:5000", "scheme": "tcp"}]}
            """;
    /** DNS only to a port of loopback where nothing answers: no step resolves a name. */
    private static final String HOST = """
            {"dns": {"servers": ["127.0.0.1:9"], "timeoutMillis": 200}}
            """;

    private StartUpTraining() {}

    /** {@code StartUpTraining DIR}: DIR is an empty folder for this run's files, removed by the caller. */
    static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
            System.err.println("usage: StartUpTraining DIR (an existing, empty folder)");
            System.exit(2);
        }
        Path dir = Path.of(args[0]).toAbsolutePath();
        String spawn = Files.writeString(dir.resolve("spawn.json"), SPAWN.formatted("training"))
                .toString();
        String host = Files.writeString(dir.resolve("host.json"), HOST).toString();
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);

        List<List<String>> helps = new ArrayList<>(List.of(List.of(), List.of("--help"), List.of("--version")));
        Main.commandLine().getSubcommands().keySet().forEach(name -> helps.add(List.of(name, "--help")));
        for (List<String> help : helps) {
            command(help, nowhere);
        }
        command(
                List.of(
                        "check",
                        "--spawn",
                        spawn,
                        "--host",
                        host,
                        "192.0.2.10:443",
                        "203.0.113.7:5432",
                        "[2001:db8::1]:443"),
                nowhere);
        command(List.of("relay", "--spawn", spawn, "--host", host, "--dir", dir.toString()), nowhere);
        command(List.of("run", "--dir", dir.toString(), "--", "true"), nowhere);
        daemon(dir, host, nowhere);
    }

    private static int command(List<String> args, PrintStream out) {
        InputStream closed = new ByteArrayInputStream(new byte[0]);
        return Main.run(args.toArray(String[]::new), closed, out, out);
    }

    /** The daemon until its ready line, a request to each route, then the exit a signal makes. */
    private static void daemon(Path dir, String host, PrintStream nowhere) throws IOException, InterruptedException {
        CompletableFuture<String> ready = new CompletableFuture<>();
        Path control = dir.resolve("control.sock");
        Thread daemon = new Thread(
                () -> {
                    int status = command(
                            List.of(
                                    "daemon",
                                    "--host",
                                    host,
                                    "--control",
                                    control.toString(),
                                    "--dir",
                                    dir.toString(),
                                    "--metrics-listen",
                                    "127.0.0.1:0",
                                    "--drain",
                                    "0"),
                            new PrintStream(new FirstLine(ready), true, StandardCharsets.UTF_8));
                    ready.complete("exit " + status);
                },
                "training-daemon");
        daemon.setDaemon(true);
        daemon.start();
        String line;
        try {
            line = ready.get(STEP_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            line = "";
        }
        if (line.startsWith("{")) {
            SocketAddress socket = UnixDomainSocketAddress.of(control);
            String body = SPAWN.formatted("training-daemon");
            ask(socket, "GET /healthz", "");
            ask(socket, "GET /readyz", "");
            ask(socket, "POST /spawns", body);
            ask(socket, "GET /spawns", "");
            ask(socket, "GET /spawns/training-daemon", "");
            ask(socket, "POST /spawns", body);
            ask(socket, "POST /spawns", "{\"id\": 1}");
            ask(socket, "POST /reload", "");
            ask(socket, "GET /metrics", "");
            ask(socket, "DELETE /spawns/training-daemon", "");
            ask(socket, "GET /nowhere", "");
            Matcher metrics = METRICS.matcher(line);
            if (metrics.find()) {
                ask(new InetSocketAddress(metrics.group(1), Integer.parseInt(metrics.group(2))), "GET /metrics", "");
            }
        }
        nowhere.flush();
        // As SIGTERM: the daemon's shutdown hook drains, closes and halts with 0.
        System.exit(0);
    }

    /** One request with {@code Connection: close}; the answer is read to its end and dropped. */
    private static void ask(SocketAddress to, String request, String body) {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        String head = request + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + content.length + "\r\nConnection: close\r\n\r\n";
        try (SocketChannel channel = to instanceof UnixDomainSocketAddress
                ? SocketChannel.open(StandardProtocolFamily.UNIX)
                : SocketChannel.open()) {
            channel.connect(to);
            channel.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
            channel.write(ByteBuffer.wrap(content));
            ByteBuffer answer = ByteBuffer.allocate(16 * 1024);
            while (channel.read(answer.clear()) >= 0) {
                // Read to the end: the daemon closes once its answer is sent.
            }
        } catch (IOException e) {
            // A route that failed here is only missing from the cache.
        }
    }

    /** Completes {@code line} with the first line written, and drops everything. */
    private static final class FirstLine extends OutputStream {
        private final CompletableFuture<String> line;
        private final StringBuilder text = new StringBuilder();

        FirstLine(CompletableFuture<String> line) {
            this.line = line;
        }

        @Override
        public void write(int b) {
            if (line.isDone()) {
                return;
            }
            if (b == '\n') {
                line.complete(text.toString());
            } else {
                text.append((char) b);
            }
        }
    }
}
