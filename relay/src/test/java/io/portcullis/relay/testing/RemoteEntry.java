package io.portcullis.relay.testing;

import io.portcullis.wire.Posix;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An entry in a network namespace of its own, for tests where the relay must tell the spawn's
 * namespace from the test's (the daemon refuses control connections from a spawn's namespace): a
 * child JVM in a fresh namespace hands sockets over on request, and one thread of the test moved
 * into that namespace connects the spawn's clients.
 */
public final class RemoteEntry implements AutoCloseable {
    private final Process process;
    private final PrintWriter commands;
    private final BufferedReader answers;
    private final ExecutorService inside;

    private RemoteEntry(Process process) throws IOException {
        this.process = process;
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String ready = answers.readLine();
        if (!"ready".equals(ready)) {
            process.destroyForcibly();
            throw new IOException("the remote entry did not start: " + ready);
        }
        String namespace = "/proc/" + process.pid() + "/ns/net";
        this.inside =
                Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory());
        call(() -> {
            Posix.enterNetworkNamespace(namespace);
            return null;
        });
    }

    public static RemoteEntry start() throws IOException {
        return start(List.of("unshare", "--net"));
    }

    /**
     * An entry in a network namespace owned by a user namespace of its own, where it is root: the
     * rootless wall ({@code unshare -U -r -n}), whose program may destroy its namespace's sockets.
     * It has a pid namespace of its own too, as a wall of the relay's uid needs (decision D69).
     */
    public static RemoteEntry startRootless() throws IOException {
        return start(List.of("unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"));
    }

    /**
     * The rootless wall without a pid namespace ({@code unshare -U -r -n}): its entry is of the
     * relay's uid (root's, for a relay run as root) and in the relay's pid namespace, where it could
     * signal the relay (decision D69).
     */
    public static RemoteEntry startRootlessSharingPids() throws IOException {
        return start(List.of("unshare", "--user", "--map-root-user", "--net"));
    }

    private static RemoteEntry start(List<String> unshare) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(unshare);
        command.addAll(List.of(
                "sh",
                "-c",
                "ip link set lo up && exec \"$0\" \"$@\"",
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xshare:auto",
                "-cp",
                System.getProperty("java.class.path"),
                RemoteEntry.class.getName()));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        return new RemoteEntry(process);
    }

    /** Runs {@code command} (no spaces in its words) in the entry's namespaces; its exit status. */
    public synchronized int run(String... command) throws IOException {
        commands.println("run " + String.join(" ", command));
        String answer = answers.readLine();
        if (answer == null || !answer.startsWith("exit ")) {
            throw new IOException("the remote entry did not run " + List.of(command) + ": " + answer);
        }
        return Integer.parseInt(answer.substring("exit ".length()));
    }

    /**
     * Hands over a proxy socket on {@code proxy} and forwards on {@code forwards} to {@code socket},
     * with the spawn's hand-over {@code key}.
     */
    public synchronized void handOver(Path socket, String key, int proxy, List<Integer> forwards) throws IOException {
        commands.println(socket + " " + key + " " + proxy + " "
                + String.join(",", forwards.stream().map(String::valueOf).toList()));
        String answer = answers.readLine();
        if (!"accepted".equals(answer)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
    }

    /** Hands over a proxy socket on {@code proxy} and a door on {@code door}, no forward, with the key. */
    public synchronized void handOverWithDoor(Path socket, String key, int proxy, int door) throws IOException {
        commands.println(socket + " " + key + " " + proxy + " - " + door);
        String answer = answers.readLine();
        if (!"accepted".equals(answer)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
    }

    /** A client connected to 127.0.0.1:{@code port} inside the namespace. */
    public SpawnClient connect(int port) throws IOException {
        return call(() -> SpawnClient.open(port));
    }

    /** A listening TCP socket made inside the namespace, on {@code address}; the caller owns it. */
    public int listenInside(java.net.InetSocketAddress address) throws IOException {
        return call(() -> Posix.listenTcp(address, 16));
    }

    private <T> T call(java.util.concurrent.Callable<T> task) throws IOException {
        try {
            return inside.submit(task).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        inside.shutdownNow();
        commands.close();
        process.destroyForcibly();
    }

    /**
     * The child: one line per hand-over on stdin ({@code SOCKET KEY PROXY [F1,F2...|-] [DOOR]}) or command
     * ({@code run WORD...}), one answer line on stdout.
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        PrintStream out = System.out;
        out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] parts = line.split(" ");
            if (parts[0].equals("run")) {
                Process run = new ProcessBuilder(Arrays.asList(parts).subList(1, parts.length))
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                out.println("exit " + run.waitFor());
                continue;
            }
            List<Integer> forwards = parts.length > 3 && !parts[3].isEmpty() && !parts[3].equals("-")
                    ? Arrays.stream(parts[3].split(",")).map(Integer::valueOf).toList()
                    : List.of();
            OptionalInt door = parts.length > 4 ? OptionalInt.of(Integer.parseInt(parts[4])) : OptionalInt.empty();
            try {
                TestEntry.handOver(Path.of(parts[0]), parts[1], Integer.parseInt(parts[2]), forwards, door, true);
                out.println("accepted");
            } catch (IOException | RuntimeException e) {
                out.println(e.getMessage().replace('\n', ' '));
            }
        }
    }
}
