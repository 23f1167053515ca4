package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.ListenFds;
import io.portcullis.wire.Notify;
import io.portcullis.wire.Posix;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's side of systemd (SPEC R44) against the smallest honest service manager: a unix
 * datagram socket that receives the daemon's messages and the descriptors they carry, and gives
 * those descriptors back to a second relay as systemd would at the next start. A kept spawn
 * outlives its relay, with a connection made in between served by the next; what is not a whole
 * spawn is closed and removed. The real systemd is {@code SystemdCrashTest}'s.
 */
@Timeout(60)
class ServiceManagerTest {
    private static final int FORWARD = 5000;
    private static final String POLICY = """
            {"id": "kept", "hosts": [{"target": "127.0.0.1:5000", "scheme": "tcp"}]}""";

    @TempDir
    Path parent;

    @TempDir
    Path states;

    private final String address = "@portcullis-service-manager-test-" + UUID.randomUUID();
    private int manager;
    private final List<Stored> store = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private LoopbackOrigin origin;

    /** One message the manager got, and the descriptor it carried, if any. */
    private record Stored(String text, int fd) {}

    @BeforeEach
    void listen() throws IOException {
        manager = Posix.bindUnixDatagram(address);
        origin = LoopbackOrigin.echo();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : closing.reversed()) {
            resource.close();
        }
        origin.close();
        store.stream().filter(one -> one.fd() >= 0).forEach(one -> Posix.closeQuietly(one.fd()));
        Posix.closeQuietly(manager);
    }

    private Relay relay() throws IOException {
        Relay relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .decisions(decision -> {})
                .judge(this::forwardsToOrigin)
                .start();
        closing.add(relay);
        return relay;
    }

    private CompletableFuture<Verdict> forwardsToOrigin(SpawnPolicy spawn, Request request) {
        return CompletableFuture.completedFuture(
                request.kind() == Request.Kind.FORWARD
                        ? new Verdict.Allow(
                                List.of(origin.address()), List.of(InetAddress.getLoopbackAddress()), "test")
                        : new Verdict.Deny(DenyCode.NOT_LISTED, "test"));
    }

    private ServiceManager manager(int capacity, List<ListenFds.Passed> passed) {
        ServiceManager service = new ServiceManager(new Notify(address), Optional.of(states), capacity, passed);
        closing.add(service);
        return service;
    }

    /** The next {@code count} messages (each within 5 s), and then no other for a moment. */
    private List<String> received(int count) throws IOException {
        List<Stored> got = new ArrayList<>();
        while (got.size() < count && Posix.awaitReadable(manager, 5_000)) {
            got.add(next());
        }
        while (Posix.awaitReadable(manager, 200)) {
            got.add(next());
        }
        store.addAll(got);
        return got.stream().map(Stored::text).toList();
    }

    private Stored next() throws IOException {
        Posix.Received one = Posix.receive(manager, 4096).orElseThrow();
        assertTrue(one.fds().length <= 1, "one descriptor a message");
        return new Stored(new String(one.data(), StandardCharsets.UTF_8), one.fds().length == 1 ? one.fds()[0] : -1);
    }

    /** What the store holds now, as systemd would pass it back: every stored descriptor not removed since. */
    private List<ListenFds.Passed> passedBack() {
        List<ListenFds.Passed> passed = new ArrayList<>();
        for (Stored one : store) {
            String name =
                    one.text().substring(one.text().indexOf("FDNAME=") + 7).strip();
            if (one.text().startsWith("FDSTORE=1")) {
                passed.add(new ListenFds.Passed(one.fd(), name));
            } else if (one.text().startsWith("FDSTOREREMOVE=1")) {
                passed.removeIf(stored -> stored.name().equals(name));
            }
        }
        return passed;
    }

    private SpawnHandle open(Relay relay, ServiceManager service) throws Exception {
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn.json", POLICY));
        service.opened(spawn, json(POLICY));
        TestEntry.handOver(spawn);
        spawn.handedOver().get(5, TimeUnit.SECONDS);
        return spawn;
    }

    @Test
    void aKeptSpawnServesAgainInTheNextRelayAndAConnectionMadeBetweenIsServed() throws Exception {
        Relay first = relay();
        ServiceManager service = manager(64, List.of());
        assertEquals(0, service.restore(first));
        open(first, service);

        assertEquals(
                List.of(
                        "FDSTORE=1\nFDNAME=kept/proxy/127.0.0.1/39080\n",
                        "FDSTORE=1\nFDNAME=kept/forward/127.0.0.1/5000\n"),
                received(2));
        SpawnState state = SpawnState.parse(Files.readAllBytes(states.resolve("kept.json")));
        assertEquals(json(POLICY), state.policy());
        assertEquals(
                List.of("kept/proxy/127.0.0.1/39080", "kept/forward/127.0.0.1/5000"),
                state.names("kept").stream().map(StoreName::text).toList());

        // The process ends: its descriptors close, the store's stay.
        service.close();
        first.close();
        SpawnClient between = SpawnClient.connect(FORWARD);
        closing.add(between);
        between.write("queued");

        Relay next = relay();
        ServiceManager again = manager(64, passedBack());
        assertEquals(1, again.restore(next));

        assertEquals("serving", next.spawn("kept").orElseThrow().state().name().toLowerCase(java.util.Locale.ROOT));
        assertArrayEquals("queued".getBytes(StandardCharsets.ISO_8859_1), between.readExactly(6));
        try (SpawnClient fresh = SpawnClient.connect(FORWARD)) {
            fresh.write("again");
            assertArrayEquals("again".getBytes(StandardCharsets.ISO_8859_1), fresh.readExactly(5));
        }
        assertEquals(List.of(), received(0), "a restored spawn is in the store already");

        again.closing("kept");
        next.spawn("kept").orElseThrow().close();

        assertEquals(
                List.of(
                        "FDSTOREREMOVE=1\nFDNAME=kept/proxy/127.0.0.1/39080\n",
                        "FDSTOREREMOVE=1\nFDNAME=kept/forward/127.0.0.1/5000\n"),
                received(2));
        assertFalse(Files.exists(states.resolve("kept.json")));
    }

    /** A PUT's policy is the one a restart serves: written over the kept state, or kept at once when it came first. */
    @Test
    void aNewPolicyIsWhatTheStateFileKeeps() throws Exception {
        Relay relay = relay();
        ServiceManager service = manager(64, List.of());
        String wider = """
                {"id": "kept", "hosts": [{"target": "127.0.0.1:5000", "scheme": "tcp"},
                  {"target": "example.org:443", "scheme": "https"}]}""";
        open(relay, service);
        received(2);
        relay.spawn("kept").orElseThrow().update(SpawnPolicyJson.parse("spawn.json", wider));
        service.updated("kept", json(wider));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        JsonNode kept = SpawnState.parse(Files.readAllBytes(states.resolve("kept.json")))
                .policy();
        while (!kept.equals(json(wider)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            kept = SpawnState.parse(Files.readAllBytes(states.resolve("kept.json")))
                    .policy();
        }
        assertEquals(json(wider), kept);

        service.closing("kept");
        relay.spawn("kept").orElseThrow().close();
        received(2);

        // Changed before its entry handed over: kept with the newer policy once it serves (other
        // ports: the store's copies of the first spawn's sockets are still open in this test).
        String later = """
                {"id": "later", "proxyPort": 39081, "hosts": [{"target": "127.0.0.1:5001", "scheme": "tcp"}]}""";
        String laterWider = """
                {"id": "later", "proxyPort": 39081, "hosts": [{"target": "127.0.0.1:5001", "scheme": "tcp"},
                  {"target": "example.org:443", "scheme": "https"}]}""";
        SpawnHandle waiting = relay.open(SpawnPolicyJson.parse("spawn.json", later));
        service.opened(waiting, json(later));
        waiting.update(SpawnPolicyJson.parse("spawn.json", laterWider));
        service.updated("later", json(laterWider));
        TestEntry.handOver(waiting);
        waiting.handedOver().get(5, TimeUnit.SECONDS);
        received(2);
        assertEquals(
                json(laterWider),
                SpawnState.parse(Files.readAllBytes(states.resolve("later.json")))
                        .policy());
    }

    @Test
    void descriptorsWithoutAStateAndAStateWithoutDescriptorsAreClosedAndRemoved() throws Exception {
        Relay relay = relay();
        int stray = Posix.listenTcp(new InetSocketAddress(Handoff.IPV4_LOOPBACK, 0), 4);
        int port = Posix.localAddress(stray).orElseThrow().getPort();
        int orphan = Posix.listenTcp(new InetSocketAddress(Handoff.IPV4_LOOPBACK, 0), 4);
        int orphanPort = Posix.localAddress(orphan).orElseThrow().getPort();
        new StateDirectory(states).write("lost", StateDirectoryTest.state("lost"));
        ServiceManager service = manager(
                64,
                List.of(
                        new ListenFds.Passed(stray, "unknown"),
                        new ListenFds.Passed(orphan, "gone/proxy/127.0.0.1/" + orphanPort)));

        assertEquals(0, service.restore(relay));

        assertEquals(
                List.of(
                        "FDSTOREREMOVE=1\nFDNAME=unknown\n",
                        "FDSTOREREMOVE=1\nFDNAME=lost/proxy/127.0.0.1/39080\n",
                        "FDSTOREREMOVE=1\nFDNAME=lost/proxy/0-0-0-0-0-0-0-1/39080\n",
                        "FDSTOREREMOVE=1\nFDNAME=lost/dns/127.0.0.1/53\n",
                        "FDSTOREREMOVE=1\nFDNAME=gone/proxy/127.0.0.1/" + orphanPort + "\n"),
                received(5));
        assertFalse(Files.exists(states.resolve("lost.json")));
        assertTrue(relay.spawns().isEmpty());
        assertThrows(ConnectException.class, () -> SpawnClient.connect(port), "the stray socket is closed");
        assertThrows(ConnectException.class, () -> SpawnClient.connect(orphanPort), "so is the orphan");
    }

    @Test
    void aSpawnWhoseSocketsDoNotFitTheStoreServesButIsNotKept() throws Exception {
        Relay relay = relay();
        ServiceManager service = manager(1, List.of());
        assertEquals(0, service.restore(relay));

        SpawnHandle spawn = open(relay, service);

        Thread.sleep(500); // the spawn would be kept on the manager's own thread by now
        assertEquals(List.of(), received(0));
        assertFalse(Files.exists(states.resolve("kept.json")));
        assertEquals(SpawnHandle.State.SERVING, spawn.state());
    }

    private static JsonNode json(String text) throws IOException {
        return SpawnJson.JSON.readTree(text);
    }
}
