package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC R2, R16, issue 26 class 8: reloads back to back cost no more than one generation. Each
 * generation built its own DNS event loop, resolver and owner check and kept them about 20 s:
 * 600 reloads held 1,829 threads and 3,671 descriptors. The real owner check and DNS (the policy's
 * judge), counted in this process's threads and descriptors while another spawn is served.
 */
@Timeout(120)
class ReloadsBackToBackTest {
    /** Below the ephemeral range (32768-60999), where no connection of the run can hold it. */
    private static final int PROXY = 28380;

    private static final int RELOADS = 200;
    /** What one generation may hold beyond the first: a resolver's sockets, an owner check's threads. */
    private static final int SLACK = 12;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private Relay relay;
    private SpawnHandle spawn;

    /**
     * The host configuration of reload {@code n}: its limits change every time, so each is a new
     * generation; no DNS server is reached (nothing listens there, and no test name is looked up),
     * nor Docker.
     */
    private static HostConfig host(int n, String owner) throws Exception {
        return HostConfigJson.parse("host.json", """
                {"dns": {"servers": ["127.0.0.1:1"], "timeoutMillis": 2000},
                 "owner": {"docker": "unix:///nonexistent/docker.sock"%s},
                 "limits": {"spawnRate": %d, "spawnBurst": 1000000, "connectTimeoutMillis": 3000}}""".formatted(owner, 200 + n));
    }

    @BeforeEach
    void open() throws Exception {
        relay = Relay.builder(host(0, ""))
                .directory(parent)
                .decisions(decisions::add)
                .start();
        spawn = relay.open(SpawnPolicyJson.parse("other.json", """
                {"id": "other", "hosts": [], "proxyPort": %d}""".formatted(PROXY)));
        TestEntry.handOver(spawn);
        assertServes();
    }

    @AfterEach
    void close() {
        relay.close();
    }

    @Test
    void reloadsOfAnUnchangedOwnerAndDnsPartCostNothing() throws Exception {
        reloadWhileServed(n -> host(n, ""), SLACK);
    }

    /** A changed owner part builds a new owner check; what retiring generations hold stays bounded. */
    @Test
    void reloadsThatChangeTheOwnerPartEachTimeHoldABoundedNumber() throws Exception {
        reloadWhileServed(n -> host(n, ", \"cacheMillis\": " + (n % 1000)), SLACK * 3);
    }

    @FunctionalInterface
    private interface Hosts {
        HostConfig host(int n) throws Exception;
    }

    private void reloadWhileServed(Hosts hosts, int slack) throws Exception {
        // One reload first, so the count starts with what every later generation shares.
        relay.reload(hosts.host(1));
        Usage before = Usage.now();

        AtomicBoolean reloading = new AtomicBoolean(true);
        ExecutorService client = Executors.newSingleThreadExecutor();
        Future<Integer> served = client.submit(() -> {
            int answered = 0;
            while (reloading.get()) {
                assertServes();
                answered++;
            }
            return answered;
        });
        Usage most = before;
        try {
            for (int n = 2; n <= RELOADS; n++) {
                relay.reload(hosts.host(n));
                most = most.max(Usage.now());
            }
        } finally {
            reloading.set(false);
            client.shutdown();
        }
        assertTrue(served.get(30, TimeUnit.SECONDS) > 0, "the other spawn was served while the relay reloaded");
        assertEquals(RELOADS + 1, relay.generation());
        assertServes();

        assertTrue(
                most.descriptors() <= before.descriptors() + slack,
                "descriptors: " + before.descriptors() + " before " + RELOADS + " reloads, at most "
                        + most.descriptors() + " during them");
        assertTrue(
                most.threads() <= before.threads() + slack,
                "threads: " + before.threads() + " before " + RELOADS + " reloads, at most " + most.threads()
                        + " during them");
    }

    /** A CONNECT of the other spawn, judged by the generation in use and answered. */
    private static void assertServes() throws IOException {
        try (SpawnClient client =
                SpawnClient.open(PROXY, "CONNECT pub.test:443 HTTP/1.1\r\nHost: pub.test:443\r\n\r\n")) {
            String head = client.readHead();
            assertTrue(head.startsWith("HTTP/1.1 403"), head);
        }
    }

    /** This process's open descriptors and threads, from /proc. */
    private record Usage(long descriptors, long threads) {
        static Usage now() throws IOException {
            return new Usage(count(Path.of("/proc/self/fd")), count(Path.of("/proc/self/task")));
        }

        private static long count(Path folder) throws IOException {
            try (Stream<Path> entries = Files.list(folder)) {
                return entries.count();
            }
        }

        Usage max(Usage other) {
            return new Usage(Math.max(descriptors, other.descriptors), Math.max(threads, other.threads));
        }
    }
}
