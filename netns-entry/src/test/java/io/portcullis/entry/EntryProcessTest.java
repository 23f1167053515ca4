package io.portcullis.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Handoff.Kind;
import io.portcullis.wire.Receiver;
import io.portcullis.wire.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The entry as a wall runs it: its own JVM in a fresh network namespace that has loopback only. */
@Timeout(60)
class EntryProcessTest {

    @TempDir
    Path dir;

    private TestRelay relay;
    private int relays;
    private EntryProcess entry;

    @BeforeEach
    void relay() throws IOException {
        assumeTrue(EntryProcess.canMakeNamespaces(), "needs root and unshare(1) for a fresh network namespace");
        relay = relayFor(39080);
        entry = EntryProcess.in(dir).freshNamespace();
    }

    /** A relay that takes a proxy socket on {@code proxy}, forwards on {@code forwards} and nothing else. */
    private TestRelay relayFor(int proxy, int... forwards) throws IOException {
        if (relay != null) {
            relay.close();
        }
        List<Receiver.Wanted> wanted = new ArrayList<>(wanted(Kind.PROXY, proxy));
        for (int port : forwards) {
            wanted.addAll(wanted(Kind.FORWARD, port));
        }
        relay = TestRelay.start(dir.resolve("relay-" + ++relays + ".sock"), wanted);
        return relay;
    }

    private static List<Receiver.Wanted> wanted(Kind kind, int port) {
        return List.of(
                new Receiver.Wanted(kind, new InetSocketAddress(Listeners.IPV4_LOOPBACK, port), true),
                new Receiver.Wanted(kind, new InetSocketAddress(Listeners.IPV6_LOOPBACK, port), false));
    }

    @AfterEach
    void stop() throws IOException {
        if (relay != null) {
            relay.close();
        }
    }

    private String socket() {
        return relay.socket().toString();
    }

    /** What a fresh namespace offers after {@code ip link set lo up}: ::1 only where the kernel has IPv6. */
    private static String addresses() {
        return Files.exists(Path.of("/proc/net/if_inet6")) ? "[\"127.0.0.1\",\"::1\"]" : "[\"127.0.0.1\"]";
    }

    @Test
    void announcesThePortsItHoldsOnStdoutAfterMovingTheProxyPastForwardsAndTheDoor() throws Exception {
        List<Receiver.Wanted> wanted = new ArrayList<>(wanted(Kind.PROXY, 39082));
        wanted.addAll(wanted(Kind.FORWARD, 39080));
        wanted.addAll(wanted(Kind.FORWARD, 5000));
        wanted.addAll(wanted(Kind.DOOR, 39081));
        relay.close();
        relay = TestRelay.start(dir.resolve("other-relay.sock"), wanted);
        EntryProcess.Result result = entry.run(
                "--relay", socket(), "--forward", "39080", "--forward", "5000", "--door", "39081", "--", "true");
        assertEquals(0, result.status(), result.stderr());
        assertEquals(
                List.of(
                        "{\"proxyPort\":39082,\"forwards\":[39080,5000],\"door\":39081,\"named\":[],\"dns\":null,\"addresses\":"
                                + addresses() + "}"),
                result.stdoutLines());
    }

    /** Named entries' sockets on their synthetic addresses, and the DNS socket on UDP 127.0.0.1:53 (SPEC R24). */
    @Test
    void bindsTheNamedSocketsAndTheDnsSocket() throws Exception {
        List<Receiver.Wanted> wanted = new ArrayList<>(wanted(Kind.PROXY, 39080));
        wanted.add(new Receiver.Wanted(
                Kind.NAMED, new InetSocketAddress(InetAddress.ofLiteral("127.77.0.1"), 5432), true));
        wanted.add(
                new Receiver.Wanted(Kind.NAMED, new InetSocketAddress(InetAddress.ofLiteral("127.77.0.2"), 22), true));
        wanted.add(new Receiver.Wanted(Kind.DNS, new InetSocketAddress(Listeners.IPV4_LOOPBACK, 53), true));
        relay.close();
        relay = TestRelay.start(dir.resolve("named-relay.sock"), wanted);
        EntryProcess.Result result = entry.run(
                "--relay", socket(), "--named", "127.77.0.1:5432", "--named", "127.77.0.2:22", "--dns", "--", "true");
        assertEquals(0, result.status(), result.stderr());
        assertEquals(
                List.of("{\"proxyPort\":39080,\"forwards\":[],\"door\":null,"
                        + "\"named\":[\"127.77.0.1:5432\",\"127.77.0.2:22\"],\"dns\":\"127.0.0.1:53\",\"addresses\":"
                        + addresses() + "}"),
                result.stdoutLines());
    }

    /** A relay that does not call for the DNS socket refuses an entry that brings it: nothing extra goes. */
    @Test
    void aDnsSocketTheRelayDidNotAskForIsRefused() throws Exception {
        EntryProcess.Result result = entry.run("--relay", socket(), "--dns", "--", "true");
        assertEquals(Main.ENTRY_FAILED, result.status());
        assertTrue(
                result.stderr().contains("dns 127.0.0.1:53) is not one this spawn's policy calls for"),
                result.stderr());
    }

    @Test
    void writesTheReadinessLineToTheGivenDescriptorInstead() throws Exception {
        Path ready = dir.resolve("ready");
        EntryProcess.Result result = entry.before("exec 7>'" + ready + "'")
                .run("--relay", socket(), "--ready-fd", "7", "--", "echo", "from the command");
        assertEquals(0, result.status(), result.stderr());
        assertEquals(
                "{\"proxyPort\":39080,\"forwards\":[],\"door\":null,\"named\":[],\"dns\":null,\"addresses\":"
                        + addresses() + "}\n",
                Files.readString(ready));
        assertEquals(List.of("from the command"), result.stdoutLines());
    }

    @Test
    void refusesAReadyFdThatIsNotOpen() throws Exception {
        EntryProcess.Result result = entry.run("--relay", socket(), "--ready-fd", "9", "--", "true");
        assertEquals(Main.USAGE, result.status());
        assertTrue(
                result.stderr().contains("--ready-fd: 9 (expected: a descriptor open for writing)"), result.stderr());
        assertEquals("", result.stdout());
    }

    @Test
    void givesTheCommandTheProxyVariables() throws Exception {
        relayFor(39081, 39080);
        EntryProcess.Result result = entry.run("--relay", socket(), "--forward", "39080", "--", "env");
        assertEquals(0, result.status(), result.stderr());
        Set<String> proxyLines = new TreeSet<>(result.stdoutLines().stream()
                .filter(line -> line.matches("(?i)\\w*_proxy=.*"))
                .toList());
        assertEquals(
                new TreeSet<>(List.of(
                        "HTTP_PROXY=http://127.0.0.1:39081",
                        "HTTPS_PROXY=http://127.0.0.1:39081",
                        "http_proxy=http://127.0.0.1:39081",
                        "https_proxy=http://127.0.0.1:39081",
                        "NO_PROXY=localhost,127.0.0.1,::1",
                        "no_proxy=localhost,127.0.0.1,::1")),
                proxyLines);
        assertTrue(
                result.stdoutLines().stream().noneMatch(line -> line.startsWith(Handoff.Key.ENVIRONMENT + "=")),
                "the hand-over key is not the command's: " + result.stdout());
    }

    @Test
    void refusesToStartWithoutTheSpawnsKeyAndBindsNothing() throws Exception {
        Path marker = dir.resolve("started");
        EntryProcess.Result result =
                entry.key(Optional.empty()).run("--relay", socket(), "--", "touch", marker.toString());

        assertEquals(Main.USAGE, result.status());
        assertEquals(
                List.of(
                        "portcullis entry: PORTCULLIS_HANDOFF_KEY: not set (expected: the spawn's handoffKey, 64 hex"
                                + " digits, from the relay's ready line or the daemon's answer)",
                        "portcullis entry: see --help"),
                result.stderr().lines().toList());
        assertFalse(Files.exists(marker), "the command ran");
    }

    @Test
    void aMalformedKeyIsAUsageErrorThatDoesNotRepeatIt() throws Exception {
        String almost = EntryProcess.KEY.text().substring(1) + "x";
        EntryProcess.Result result = entry.key(Optional.of(almost)).run("--relay", socket(), "--", "true");

        assertEquals(Main.USAGE, result.status());
        assertTrue(
                result.stderr()
                        .contains(
                                "PORTCULLIS_HANDOFF_KEY: a character that is not a hex digit (expected: 64 hex digits)"),
                result.stderr());
        assertFalse(result.stderr().contains(almost.substring(0, 16)), result.stderr());
    }

    @Test
    void startsNothingWhenTheKeyIsNotTheSpawns() throws Exception {
        Path marker = dir.resolve("started");
        EntryProcess.Result result =
                entry.key(Optional.of("ab".repeat(32))).run("--relay", socket(), "--", "touch", marker.toString());

        assertEquals(Main.ENTRY_FAILED, result.status());
        assertTrue(result.stderr().contains(Handoff.REFUSED + Receiver.WRONG_KEY), result.stderr());
        assertFalse(Files.exists(marker), "the command ran");
        assertEquals(new Receiver.Unkeyed(Receiver.WRONG_KEY), relay.nextOutcome());
    }

    @Test
    void startsTheCommandWithOnlyDescriptorsZeroOneAndTwo() throws Exception {
        Path ready = dir.resolve("ready");
        EntryProcess.Result result = entry.before("exec 7>'" + ready + "' 8<'" + ready + "'")
                .run("--relay", socket(), "--ready-fd", "7", "--", "ls", "-l", "/proc/self/fd");
        assertEquals(0, result.status(), result.stderr());
        Set<Integer> fds = new TreeSet<>();
        Matcher matcher = Pattern.compile("(\\d+) -> (.*)").matcher(result.stdout());
        while (matcher.find()) {
            if (!matcher.group(2).matches("/proc/\\d+/fd")) {
                fds.add(Integer.valueOf(matcher.group(1)));
            }
        }
        assertEquals(Set.of(0, 1, 2), fds, result.stdout());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            exit 0              | 0
            exit 7              | 7
            exit 255            | 255
            kill -KILL $$       | 137
            kill -TERM $$       | 143
            """)
    void exitsWithTheCommandsStatus(String script, int status) throws Exception {
        assertEquals(
                status, entry.run("--relay", socket(), "--", "sh", "-c", script).status());
    }

    @Test
    void exitsLikeAShellWhenTheCommandCannotRun() throws Exception {
        Path notExecutable = Files.writeString(dir.resolve("script"), "#!/bin/sh\n");
        assertEquals(
                Exec.NOT_FOUND,
                entry.run("--relay", socket(), "--", dir.resolve("missing").toString())
                        .status());
        assertEquals(
                Exec.CANNOT_EXECUTE,
                entry.run("--relay", socket(), "--", notExecutable.toString()).status());
    }

    @Test
    void handsOverEverySocketItBoundAndKeepsNoCopy() throws Exception {
        relayFor(39081, 39080);
        EntryProcess.Result result =
                entry.run("--relay", socket(), "--forward", "39080", "--", "sh", "-c", "ls -l /proc/self/fd; echo $$");
        assertEquals(0, result.status(), result.stderr());
        Receiver.Accepted accepted = (Receiver.Accepted) relay.nextOutcome();
        List<String> sockets = accepted.sockets().stream()
                .map(held -> held.socket().toString())
                .toList();
        assertTrue(
                sockets.containsAll(List.of("proxy 127.0.0.1:39081", "forward 127.0.0.1:39080")), sockets.toString());
        assertTrue(result.stdout().lines().noneMatch(line -> line.contains("socket:")), result.stdout());
    }

    @Test
    void theCommandIsTheEntrysOwnProcess() throws Exception {
        Process process = entry.start("--relay", socket(), "--", "sh", "-c", "echo $$; exec cat");
        entry.awaitReady();
        process.getOutputStream().close();
        EntryProcess.Result result = entry.finish(process);
        assertEquals(0, result.status(), result.stderr());
        assertEquals(String.valueOf(process.pid()), result.stdoutLines().getLast(), result.stdout());
    }

    @Test
    void theCommandStartsWithAnEmptySignalMaskAndNoSignalIgnored() throws Exception {
        EntryProcess.Result result = entry.before("trap '' INT HUP")
                .run("--relay", socket(), "--", "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status");
        assertEquals(0, result.status(), result.stderr());
        assertEquals(
                List.of("SigBlk:\t0000000000000000", "SigIgn:\t0000000000000000"),
                result.stdoutLines().subList(1, 3));
    }

    @Test
    void startsNothingWhenTheRelayRefusesTheHandOver() throws Exception {
        relayFor(40000);
        Path marker = dir.resolve("started");
        EntryProcess.Result result = entry.run("--relay", socket(), "--", "touch", marker.toString());
        assertEquals(Main.ENTRY_FAILED, result.status());
        assertTrue(
                result.stderr().contains("the relay refused the hand-over: refused bad-handoff: socket 0 (proxy"),
                result.stderr());
        assertTrue(result.stderr().contains("started nothing"), result.stderr());
        assertFalse(Files.exists(marker), "the command ran");
        assertTrue(relay.nextOutcome() instanceof Receiver.Refused);
    }

    @Test
    void startsNothingWithoutARelay() throws Exception {
        EntryProcess.Result result =
                entry.run("--relay", dir.resolve("missing.sock").toString(), "--", "true");
        assertEquals(Main.ENTRY_FAILED, result.status());
        assertTrue(result.stderr().contains("cannot hand the sockets to the relay at"), result.stderr());
    }

    @Test
    void startsNothingWhenAListenerCannotBeBound() throws Exception {
        List<Integer> ports = FreePorts.take(2);
        Path marker = dir.resolve("started");
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(Listeners.IPV4_LOOPBACK, ports.get(1)));
            EntryProcess.Result result = EntryProcess.in(dir)
                    .run(
                            "--relay",
                            socket(),
                            "--proxy-port",
                            "" + ports.get(0),
                            "--forward",
                            "" + ports.get(1),
                            "--",
                            "touch",
                            marker.toString());
            assertEquals(Main.ENTRY_FAILED, result.status());
            assertTrue(
                    result.stderr()
                            .contains(
                                    "cannot listen on 127.0.0.1:" + ports.get(1) + " (forward " + ports.get(1) + "): "),
                    result.stderr());
            assertTrue(result.stderr().contains("started nothing"), result.stderr());
            assertEquals("", result.stdout());
            assertFalse(Files.exists(marker), "the command ran");
        }
    }

    @Test
    void refusesToStartWhileLoopbackIsDown() throws Exception {
        EntryProcess.Result result =
                EntryProcess.in(dir).freshNamespaceLoopbackDown().run("--relay", socket(), "--", "true");
        assertEquals(Main.ENTRY_FAILED, result.status());
        assertTrue(
                result.stderr()
                        .contains(
                                "loopback is down in this namespace (expected: up, e.g. ip link set lo up); started nothing"),
                result.stderr());
        assertEquals("", result.stdout());
    }

    @Test
    void reportsEveryUsageProblemAndExitsTwo() throws Exception {
        EntryProcess.Result result = entry.run("--forward", "0", "--door", "x");
        assertEquals(Main.USAGE, result.status());
        assertEquals(
                List.of(
                        "portcullis entry: --forward: 0 (expected: 1-65535)",
                        "portcullis entry: --door: x (expected: 1-65535)",
                        "portcullis entry: --relay: missing (expected: the relay's unix socket path)",
                        "portcullis entry: see --help"),
                result.stderr().lines().toList());
    }

    @Test
    void exitsZeroOnceReadyWithoutACommand() throws Exception {
        EntryProcess.Result result = entry.run("--relay", socket());
        assertEquals(0, result.status(), result.stderr());
        assertEquals(1, result.stdoutLines().size(), result.stdout());
    }
}
