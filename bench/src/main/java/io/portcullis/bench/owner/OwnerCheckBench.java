package io.portcullis.bench.owner;

import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.WallProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The owner check of this host for a loopback port held by a process of the gateway's user (a
 * python3 listener under another uid, so the whole R31 path runs: sock_diag, the /proc fd scan,
 * the rules). {@code warm}: the answer is cached. {@code cold}: no cache window, so every call asks
 * the kernel and scans every process, with {@code idleProcesses} extra sleeping processes on the
 * machine. {@code coldOtherUser}: a socket of another uid, decided without a process scan. Needs
 * root (setpriv) and python3.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class OwnerCheckBench {
    private static final int GATEWAY_UID = 4100;
    private static final int OTHER_UID = 4200;
    private static final String LISTENER = String.join(
            "\n",
            "import socket, sys",
            "s = socket.socket()",
            "s.bind(('127.0.0.1', 0))",
            "s.listen(8)",
            "print(s.getsockname()[1], flush=True)",
            "sys.stdin.read()");

    @Param({"0", "2000"})
    public int idleProcesses;

    private final List<Process> idle = new ArrayList<>();
    private Process listener;
    private Process otherListener;
    private ManagedOwnerCheck warm;
    private ManagedOwnerCheck cold;
    private OwnerQuery query;
    private OwnerQuery otherQuery;

    @Setup(Level.Trial)
    public void start() throws IOException {
        Path folder = Files.createTempDirectory("owner-bench");
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        listener = listen(GATEWAY_UID, folder);
        otherListener = listen(OTHER_UID, folder);
        for (int i = 0; i < idleProcesses; i++) {
            idle.add(new ProcessBuilder("sleep", "3600").start());
        }
        query = query(listener);
        otherQuery = query(otherListener);
        warm = OwnerChecks.system(config(Duration.ofHours(1)), new WallProcesses());
        cold = OwnerChecks.system(config(Duration.ZERO), new WallProcesses());
        OwnerAnswer answer = cold.check(query).join();
        if (!answer.allowed()) {
            throw new IllegalStateException("expected an allowed answer, got " + answer);
        }
    }

    private static Process listen(int uid, Path folder) throws IOException {
        return new ProcessBuilder(
                        "setpriv",
                        "--reuid",
                        Integer.toString(uid),
                        "--regid",
                        Integer.toString(uid),
                        "--clear-groups",
                        "/usr/bin/python3",
                        "-c",
                        LISTENER)
                .directory(folder.toFile())
                .start();
    }

    private static OwnerQuery query(Process listener) throws IOException {
        String port =
                new BufferedReader(new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (port == null) {
            throw new IllegalStateException("the listener did not start (root, setpriv and python3 needed)");
        }
        return new OwnerQuery(
                "studio", OwnerQuery.Source.OWNER, InetAddress.ofLiteral("127.0.0.1"), Integer.parseInt(port.strip()));
    }

    private static OwnerConfig config(Duration window) {
        return new OwnerConfig(
                GATEWAY_UID,
                0,
                List.of(Path.of("/nonexistent-checkout")),
                List.of(),
                Set.of("studio"),
                List.of(),
                Map.of(),
                OwnerConfig.DEFAULT_DOCKER_ENDPOINT,
                window);
    }

    @TearDown(Level.Trial)
    public void stop() {
        warm.close();
        cold.close();
        listener.destroyForcibly();
        otherListener.destroyForcibly();
        idle.forEach(Process::destroyForcibly);
        idle.clear();
    }

    @Benchmark
    public OwnerAnswer warm() {
        return warm.check(query).join();
    }

    @Benchmark
    public OwnerAnswer cold() {
        return cold.check(query).join();
    }

    /** Another user's socket: decided by its uid, no process scan. */
    @Benchmark
    public OwnerAnswer coldOtherUser() {
        return cold.check(otherQuery).join();
    }
}
