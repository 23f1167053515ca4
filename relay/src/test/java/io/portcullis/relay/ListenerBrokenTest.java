package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RemoteEntry;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Sender;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC R4, issue 26 class 3: a handed-over listening socket that stops being one, destroyed with
 * {@code ss -K} by root of a rootless spawn's user namespace, or shut down by an entry that kept a
 * copy. Without a check the relay's event loop turned on the socket's hang-up (a core) or accepted,
 * failed and logged again at each turn (55 GB of log). The spawn is marked broken once, with one
 * {@code listener-broken} line, the log stays small, the process idle, and another spawn serves.
 *
 * <p>The same for the DNS socket (UDP) of an entry that kept a copy: shut for reading (it then
 * reports readable with nothing to read) or asked for errors and sent one to a closed port (the
 * error waits in a queue that no read drains); either turned the event loop at full speed.
 */
@Timeout(60)
class ListenerBrokenTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold them. */
    private static final int BROKEN = 28180;

    private static final int OTHER = 28280;
    /** Where nothing listens: a datagram sent there comes back as an ICMP error. */
    private static final int CLOSED = 28380;
    /** How long the relay is watched once the socket stopped. */
    private static final long WATCH_MILLIS = 3000;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private Relay relay;
    private SpawnHandle other;

    @BeforeEach
    void open() throws Exception {
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .decisions(decisions::add)
                .judge((policy, request) ->
                        CompletableFuture.completedFuture(new Verdict.Deny(DenyCode.NOT_LISTED, "test")))
                .start();
        other = relay.open(SpawnPolicyJson.parse("other.json", """
                {"id": "other", "hosts": [], "proxyPort": %d}""".formatted(OTHER)));
        TestEntry.handOver(other);
    }

    @AfterEach
    void close() {
        relay.close();
    }

    private SpawnHandle spawn(String id) throws Exception {
        return relay.open(SpawnPolicyJson.parse(id + ".json", """
                {"id": "%s", "hosts": [], "proxyPort": %d}""".formatted(id, BROKEN)));
    }

    @Test
    void aProxySocketShutDownByAnEntryThatKeptACopyBreaksItsSpawnOnce() throws Exception {
        SpawnHandle spawn = spawn("kept");
        Handoff.Socket proxy = TestEntry.socket(Handoff.Kind.PROXY, BROKEN);
        int kept = Posix.listenTcp(proxy.address(), 16);
        try {
            assertEquals(
                    Handoff.ACCEPTED,
                    Sender.handOver(
                            spawn.socket(),
                            Handoff.Key.parse(spawn.handoffKey()),
                            List.of(proxy),
                            new int[] {kept},
                            10_000));
            spawn.handedOver().get(5, TimeUnit.SECONDS);

            Watched watched = watch(() -> Posix.shutdownQuietly(kept));

            assertBrokenOnce(spawn, watched, proxy, "proxy:127.0.0.1:" + BROKEN);
            assertThrows(IOException.class, () -> SpawnClient.open(BROKEN), "nothing listens on the port any more");
        } finally {
            Posix.closeQuietly(kept);
        }
    }

    /** A DNS socket shut for reading reports readable (and a read hang-up) for ever, with nothing to read. */
    @Test
    void aDnsSocketShutForReadingByAnEntryThatKeptACopyBreaksItsSpawnOnce() throws Exception {
        aDnsSocketOfAnEntryThatKeptACopy("shut", dns -> Posix.shutdownQuietly(dns, Posix.SHUT_RD));
    }

    /** A DNS socket that holds an error in its error queue reports the error for ever: no read drains it. */
    @Test
    void aDnsSocketWithAQueuedErrorByAnEntryThatKeptACopyBreaksItsSpawnOnce() throws Exception {
        aDnsSocketOfAnEntryThatKeptACopy("errors", dns -> {
            Posix.setIntOption(dns, Posix.IPPROTO_IP, Posix.IP_RECVERR, 1);
            Posix.sendTo(dns, new byte[] {1}, new InetSocketAddress(InetAddress.getLoopbackAddress(), CLOSED));
        });
    }

    private void aDnsSocketOfAnEntryThatKeptACopy(String id, DnsAction tamper) throws Exception {
        SpawnHandle spawn = spawn(id);
        Handoff.Socket proxy = TestEntry.socket(Handoff.Kind.PROXY, BROKEN);
        Handoff.Socket dns = TestEntry.socket(Handoff.Kind.DNS, 53);
        int proxyFd = Posix.listenTcp(proxy.address(), 16);
        int kept = Posix.bindUdp(dns.address());
        try {
            assertEquals(
                    Handoff.ACCEPTED,
                    Sender.handOver(
                            spawn.socket(),
                            Handoff.Key.parse(spawn.handoffKey()),
                            List.of(proxy, dns),
                            new int[] {proxyFd, kept},
                            10_000));
            Posix.closeQuietly(proxyFd);
            spawn.handedOver().get(5, TimeUnit.SECONDS);

            Watched watched = watch(() -> tamper.run(kept));

            assertBrokenOnce(spawn, watched, dns, "dns:127.0.0.1:53");
            assertThrows(IOException.class, () -> SpawnClient.open(BROKEN), "the spawn's other sockets are closed");
        } finally {
            Posix.closeQuietly(proxyFd);
            Posix.closeQuietly(kept);
        }
    }

    @FunctionalInterface
    private interface DnsAction {
        void run(int dns) throws Exception;
    }

    @Test
    void ssKillInsideARootlessSpawnsNamespaceBreaksItsSpawnOnce() throws Exception {
        SpawnHandle spawn = spawn("rootless");
        try (RemoteEntry entry = RemoteEntry.startRootless()) {
            entry.handOver(spawn.socket(), spawn.handoffKey(), BROKEN, List.of());
            spawn.handedOver().get(5, TimeUnit.SECONDS);

            Watched watched = watch(() -> assertEquals(0, entry.run("ss", "-K", "state", "listening")));

            assertBrokenOnce(spawn, watched, TestEntry.socket(Handoff.Kind.PROXY, BROKEN), "proxy:127.0.0.1:" + BROKEN);
            assertThrows(IOException.class, () -> entry.connect(BROKEN), "nothing listens on the port any more");
        }
    }

    private void assertBrokenOnce(SpawnHandle spawn, Watched watched, Handoff.Socket socket, String target)
            throws Exception {
        assertTrue(
                watched.log().length() < 4096 && watched.log().lines().count() <= 4,
                "the log stays small: " + watched.log().length() + " bytes, from\n"
                        + watched.log()
                                .substring(0, Math.min(2000, watched.log().length())));
        assertTrue(
                watched.cpuMillis() < WATCH_MILLIS / 3,
                "the relay idles: " + watched.cpuMillis() + " ms of CPU in " + WATCH_MILLIS + " ms");
        assertEquals(SpawnHandle.State.BROKEN, spawn.state());
        assertTrue(
                spawn.broken().orElseThrow().startsWith(socket + ": "),
                spawn.broken().get());
        List<Decision> broken = decisions.stream()
                .filter(decision -> decision.code().orElse(null) == DenyCode.LISTENER_BROKEN)
                .toList();
        assertEquals(1, broken.size(), "one listener-broken line: " + decisions);
        assertEquals("listener", broken.getFirst().kind());
        assertEquals(spawn.id(), broken.getFirst().spawn());
        assertEquals(target, Line.of(broken.getFirst()).target());
        assertTrue(relay.metricsText().contains("portcullis_listeners_broken_total 1.0"), relay.metricsText());
        try (SpawnClient client =
                SpawnClient.open(OTHER, "CONNECT pub.test:443 HTTP/1.1\r\nHost: pub.test:443\r\n\r\n")) {
            assertTrue(client.readHead().startsWith("HTTP/1.1 403"), "another spawn serves");
        }
        assertEquals(SpawnHandle.State.SERVING, other.state());
    }

    /** What the process wrote on standard error and the CPU it spent in {@link #WATCH_MILLIS} after {@code stop}. */
    private record Watched(String log, long cpuMillis) {}

    private Watched watch(Action stop) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        long cpu;
        try {
            stop.run();
            long start = cpuMillis();
            Thread.sleep(WATCH_MILLIS);
            cpu = cpuMillis() - start;
        } finally {
            System.setErr(err);
        }
        List<String> lines = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).lines().toList()) {
            // Jazzer's agent, loaded in this JVM by a fuzz test that ran earlier, reports each class
            // it instruments on standard error as the class loads; that is not the relay's log.
            if (!line.startsWith("INFO: Instrumented ")) {
                lines.add(line);
            }
        }
        return new Watched(String.join("\n", lines), cpu);
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /**
     * The CPU time so far of this process's threads but the JVM's own (user and system, from /proc):
     * the compilers and the collector of a JVM that just started may take a core for seconds, and
     * they are not the relay spinning.
     */
    private static long cpuMillis() throws IOException {
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // the thread ended
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (name.startsWith("C1 ")
                        || name.startsWith("C2 ")
                        || name.startsWith("G1 ")
                        || name.startsWith("GC ")
                        || name.startsWith("VM ")) {
                    continue;
                }
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            }
        }
        return ticks * 1000 / 100; // USER_HZ is 100 on Linux
    }
}
