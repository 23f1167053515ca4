package io.portcullis.launch;

import io.portcullis.world.DnsAnswer;
import io.portcullis.world.OriginProcess;
import io.portcullis.world.Site;
import io.portcullis.world.TlsMaterial;
import io.portcullis.world.World;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.stream.Stream;

/**
 * The demo's own small world, built in this process's network namespace, which must route nowhere:
 * an "internet" site with global addresses, a LAN site, origins on both, a DNS server on loopback,
 * and three services on this host's loopback: one of the gateway's user, one of another user (each
 * a process of its own), and one that this process, the relay's, holds. Closing removes all of it,
 * also while it is being built.
 */
final class DemoWorld implements AutoCloseable {
    static final String WEB = "www.example.test";
    static final String NAS = "nas.lan";
    static final String MIXED = "mixed.example.test";

    private final Deque<AutoCloseable> parts = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;
    private final Site internet = Site.internet();
    private final Site lan = Site.lan();
    private final int gatewayUid;
    private final int otherUid;

    private DemoWorld(int gatewayUid, int otherUid) {
        this.gatewayUid = gatewayUid;
        this.otherUid = otherUid;
    }

    /**
     * An empty world whose loopback services run as {@code gatewayUid} and {@code otherUid};
     * {@link #start} builds it, and {@link #close} may run meanwhile from another thread.
     */
    static DemoWorld create(int gatewayUid, int otherUid) {
        return new DemoWorld(gatewayUid, otherUid);
    }

    /**
     * What the demo's table is run against once the world is built.
     *
     * @param dns the DNS server, for the host configuration's {@code dns.servers}
     * @param certificate the certificate the origins present; curl trusts it
     * @param loopbackPort the port of the service on this host's loopback that this process holds
     * @param own the service of the gateway's user
     * @param other the service of another user
     * @param unlistedLanHost a LAN host that the demo's policy does not list
     */
    record Built(
            ZoneDnsServer dns,
            Path certificate,
            int loopbackPort,
            DemoService own,
            DemoService other,
            InetAddress unlistedLanHost) {}

    Built start() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("portcullis-demo-");
        add(() -> deleteTree(dir));
        World world = add(World.build(List.of(internet, lan)));
        Zone zone = new Zone()
                .set(
                        WEB,
                        DnsAnswer.of(List.of(
                                internet.hosts().get(0), internet.hosts().get(2))))
                .set(NAS, DnsAnswer.of(List.of(lan.hosts().get(0))))
                .set(
                        MIXED,
                        DnsAnswer.of(
                                List.of(internet.hosts().get(1), lan.hosts().get(1))));
        ZoneDnsServer dns = add(ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0));
        List<InetAddress> hosts =
                Stream.concat(internet.hosts().stream(), lan.hosts().stream()).toList();
        TlsMaterial tls = TlsMaterial.create(dir, List.of(WEB, NAS, MIXED), hosts);
        // Each origin is a JVM of its own; starting both at once halves the wait.
        CompletableFuture<OriginProcess> inet =
                CompletableFuture.supplyAsync(() -> origin(world, internet, "inet", dir, tls));
        CompletableFuture<OriginProcess> home =
                CompletableFuture.supplyAsync(() -> origin(world, lan, "lan", dir, tls));
        CompletableFuture<DemoService> yours = CompletableFuture.supplyAsync(() -> service("yours", gatewayUid));
        CompletableFuture<DemoService> theirs = CompletableFuture.supplyAsync(() -> service("theirs", otherUid));
        IOException failure = null;
        for (CompletableFuture<? extends AutoCloseable> part : List.of(inet, home, yours, theirs)) {
            try {
                add(join(part));
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        ServerSocket loopbackService = add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        world.verifyNoRouteOut();
        return new Built(
                dns,
                tls.certificatePem(),
                loopbackService.getLocalPort(),
                yours.join(),
                theirs.join(),
                lan.hosts().get(1));
    }

    /** Keeps {@code part} to close with the world; after {@link #close}, closes it at once. */
    private <T extends AutoCloseable> T add(T part) {
        parts.addFirst(part);
        if (closed) {
            close();
        }
        return part;
    }

    private static OriginProcess origin(World world, Site site, String name, Path dir, TlsMaterial tls) {
        try {
            return OriginProcess.start(world, site, name, dir, tls);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DemoService service(String name, int uid) {
        try {
            return DemoService.start(name, uid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T join(CompletableFuture<T> part) throws IOException {
        try {
            return part.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof UncheckedIOException io
                    ? io.getCause()
                    : new IOException("a part of the world did not start: " + e.getCause(), e.getCause());
        }
    }

    /** Closes every part, newest first, each once; never throws. */
    @Override
    public void close() {
        closed = true;
        for (AutoCloseable part; (part = parts.pollFirst()) != null; ) {
            try {
                part.close();
            } catch (Exception e) {
                // Best effort: the namespaces have no route out, and the next world removes stale ones.
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // A leftover demo directory holds a test certificate only.
        }
    }
}
