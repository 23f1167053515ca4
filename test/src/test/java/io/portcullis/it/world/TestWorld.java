package io.portcullis.it.world;

import io.portcullis.world.OriginProcess;
import io.portcullis.world.Site;
import io.portcullis.world.TlsMaterial;
import io.portcullis.world.World;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The end-to-end test world: an "internet" namespace of hosts with global addresses, a "LAN"
 * namespace of private hosts, both with origins (HTTP 80/8080, TLS 443/8443, echo 7, bulk 9), a DNS
 * server on loopback serving a {@link Zone} the test controls, and a {@link DialGuard}. Built once
 * per test run in the JVM's own network namespace, which must have no route out (run the class as
 * a {@link NetnsTest}), and shared by the classes that register it; the zone is cleared before
 * each test. Everything is removed when the run ends.
 *
 * <pre>{@code @RegisterExtension static TestWorld world = TestWorld.create();}</pre>
 */
public final class TestWorld implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
    /** Names the TLS origins' certificate is valid for, besides every host address. */
    public static final List<String> TLS_NAMES = List.of("origin.test", "www.example.test", "nas.lan");

    private static final String DIR_PREFIX = "portcullis-world-";
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(TestWorld.class);

    private Parts parts;

    private TestWorld() {}

    public static TestWorld create() {
        return new TestWorld();
    }

    /**
     * Joins the world of this test run, building it on first use. It lives in the root context's
     * store, which closes it when the run ends, however the run ends; a JVM that dies leaves
     * namespaces and a directory that the next world removes.
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        parts = context.getRoot().getStore(STORE).computeIfAbsent(Parts.class, k -> Parts.build(), Parts.class);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        parts.zone.clear();
    }

    /** A class whose code leaked a Netty buffer fails (STYLE 18). */
    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        NettyLeaks.assertNone();
    }

    /** Everything one world holds; closing removes all of it and never throws. */
    private static final class Parts implements AutoCloseable {
        final Site internet = Site.internet();
        final Site lan = Site.lan();
        final Zone zone = new Zone();
        final List<AutoCloseable> closeables = new ArrayList<>();
        Path dir;
        World world;
        ZoneDnsServer dns;
        TlsMaterial tls;
        DialGuard guard;

        static Parts build() {
            Parts parts = new Parts();
            try {
                parts.start();
                return parts;
            } catch (Exception e) {
                parts.close();
                throw new IllegalStateException("the test world could not be built: " + e.getMessage(), e);
            }
        }

        private void start() throws IOException, InterruptedException {
            removeStaleDirectories();
            dir = Files.createTempDirectory(DIR_PREFIX + ProcessHandle.current().pid() + "-");
            world = World.build(List.of(internet, lan));
            closeables.add(world);
            guard = new DialGuard(world);
            dns = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
            closeables.add(dns);
            List<InetAddress> addresses = Stream.concat(internet.hosts().stream(), lan.hosts().stream())
                    .toList();
            tls = TlsMaterial.create(dir, TLS_NAMES, addresses);
            closeables.add(OriginProcess.start(world, internet, "inet", dir, tls));
            closeables.add(OriginProcess.start(world, lan, "lan", dir, tls));
            world.verifyNoRouteOut();
        }

        @Override
        public void close() {
            for (AutoCloseable part : closeables.reversed()) {
                try {
                    part.close();
                } catch (Exception e) {
                    // Each part's close is best effort; the others still run.
                }
            }
            closeables.clear();
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** The zone the DNS server serves; cleared before each test. */
    public Zone zone() {
        return parts.zone;
    }

    /** The DNS server's address (UDP and TCP). */
    public ZoneDnsServer dns() {
        return parts.dns;
    }

    /** Host {@code index} of the internet site: 0, 1 are IPv4, 2, 3 are IPv6. */
    public InetAddress internetHost(int index) {
        return parts.internet.hosts().get(index);
    }

    /** Host {@code index} of the LAN site: 0, 1 are IPv4, 2 is IPv6. */
    public InetAddress lanHost(int index) {
        return parts.lan.hosts().get(index);
    }

    /** This namespace's own addresses on the sites' links: an own address for the relay here. */
    public List<InetAddress> ownLinkAddresses() {
        return Stream.concat(parts.internet.gateways().stream(), parts.lan.gateways().stream())
                .toList();
    }

    public DialGuard guard() {
        return parts.guard;
    }

    public TlsMaterial tls() {
        return parts.tls;
    }

    /** A working directory, shared by the test classes of this run, removed with the world. */
    public Path dir() {
        return parts.dir;
    }

    /** A connected socket to a guarded address. */
    public Socket connect(InetAddress address, int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(parts.guard.check(new InetSocketAddress(address, port)), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** The bytes an HTTP origin recorded for {@code record}, waiting up to {@code wait} for the connection to end. */
    public byte[] recorded(String record, Duration wait) throws IOException, InterruptedException {
        Path file = parts.dir.resolve(record + ".bin");
        long deadline = System.nanoTime() + wait.toNanos();
        while (!Files.exists(file) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return Files.readAllBytes(file);
    }

    /**
     * The command line that runs {@code command} as a spawn would run: in a fresh network namespace
     * with loopback up and nothing else.
     */
    public static List<String> inSpawnNamespace(List<String> command) {
        List<String> argv = new ArrayList<>(
                List.of("unshare", "--net", "--", "/bin/sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""));
        argv.addAll(command);
        return argv;
    }

    /** Removes the working directories of runs whose JVM is gone (a crash skips afterAll). */
    private static void removeStaleDirectories() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(p -> p.getFileName().toString().startsWith(DIR_PREFIX))
                    .filter(TestWorld::isStale)
                    .forEach(TestWorld::deleteTree);
        }
    }

    private static boolean isStale(Path dir) {
        String[] parts =
                dir.getFileName().toString().substring(DIR_PREFIX.length()).split("-");
        try {
            return ProcessHandle.of(Long.parseLong(parts[0])).isEmpty();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Best effort: what cannot be removed stays, and a later run's stale sweep tries again. */
    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Gone already, or unreadable: nothing more to do here.
        }
    }
}
