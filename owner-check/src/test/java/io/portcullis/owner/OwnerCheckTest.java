package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.testing.PythonListener;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole owner check of this host against real listeners: in-JVM sockets and python3 processes
 * under the gateway's uid and another uid, from a checkout root and from elsewhere. Docker is a dead
 * socket here; containers are {@code DockerOwnerTest}'s.
 */
class OwnerCheckTest {
    static final int GATEWAY_UID = 4100;
    static final int OTHER_UID = 4200;
    static final String SIGNATURE = "--portcullis-test-gateway";
    static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    private static Path checkout;
    private static Path elsewhere;
    private static WallProcesses wall;
    private static ManagedOwnerCheck check;

    @BeforeAll
    static void start() {
        checkout = PythonListener.openFolder("owner-checkout");
        elsewhere = PythonListener.openFolder("owner-addon");
        wall = WallProcesses.withSelf();
        check = OwnerChecks.system(config(checkout, Path.of("/nonexistent/docker.sock")), wall);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    static OwnerConfig config(Path root, Path dockerSocket) {
        return new OwnerConfig(
                GATEWAY_UID,
                18789,
                List.of(root),
                List.of(new OwnerConfig.Signature(
                        "test-gateway", Optional.of(Pattern.compile(Pattern.quote(SIGNATURE))), Optional.empty())),
                Set.of("studio"),
                List.of(),
                Map.of(),
                "unix://" + dockerSocket,
                java.time.Duration.ZERO);
    }

    private static OwnerAnswer ask(Source source, InetAddress address, int port) {
        return check.check(new OwnerQuery("studio", source, address, port)).join();
    }

    private static Optional<OwnerCode> code(Source source, int port) {
        return ask(source, LOOPBACK, port).code();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            return s.getLocalPort();
        }
    }

    /** An IPv4 address of one of this host's non-loopback devices. */
    static InetAddress ownNonLoopbackAddress() throws SocketException {
        InetAddress own = NetworkInterface.networkInterfaces()
                .filter(i -> !i.getName().equals("lo"))
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof java.net.Inet4Address)
                .findFirst()
                .orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(own != null, "no IPv4 address besides loopback");
        return own;
    }

    @Test
    void nothingListeningOnAnOwnAddressWithDockerDownIsDockerDown() throws IOException {
        assertEquals(
                Optional.of(OwnerCode.DOCKER_DOWN),
                ask(Source.OWNER, ownNonLoopbackAddress(), freePort()).code());
    }

    /**
     * Regression (issue 9, item 3): an address in a Docker network that is not this host's own was
     * judged by the host's wildcard listener while Docker was down; only a container could answer it.
     */
    @Test
    void aContainerNetworkAddressWithDockerDownIsDockerDownWhateverListensOnTheHost() {
        try (PythonListener l =
                PythonListener.v4("0.0.0.0").uid(GATEWAY_UID).cwd(elsewhere).start()) {
            InetAddress container = InetAddress.ofLiteral("172.17.0.2");
            OwnerAnswer answer = check.check(new OwnerQuery("studio", Source.OWNER, container, l.port(), false))
                    .join();
            assertEquals(Optional.of(OwnerCode.DOCKER_DOWN), answer.code(), answer::toString);
        }
    }

    @Test
    void nothingListening() throws IOException {
        OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, freePort());
        assertEquals(Optional.of(OwnerCode.NONE), answer.code());
        assertEquals(List.of(), answer.evidence().listeners());
    }

    @Test
    void theGatewayUsersOwnServiceIsAllowedForAnOwnerEntryOnly() {
        try (PythonListener l =
                PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(elsewhere).start()) {
            OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, l.port());
            assertTrue(answer.allowed(), answer::toString);
            OwnerEvidence.Process p = answer.evidence().processes().getFirst();
            assertEquals(l.pid(), p.pid());
            assertEquals(elsewhere.toString(), p.cwd());
            assertEquals(GATEWAY_UID, answer.evidence().listeners().getFirst().uid());
            assertEquals(Optional.of(OwnerCode.DEFAULT_USER), code(Source.DEFAULT, l.port()));
        }
    }

    @Test
    void aProcessRunFromTheCheckoutIsRefused() {
        try (PythonListener l =
                PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(checkout).start()) {
            assertEquals(Optional.of(OwnerCode.CHECKOUT), code(Source.OWNER, l.port()));
        }
    }

    @Test
    void anArgvElementUnderTheCheckoutIsRefused() {
        try (PythonListener l = PythonListener.v4("127.0.0.1")
                .uid(GATEWAY_UID)
                .cwd(elsewhere)
                .arg("--config=" + checkout.resolve("gateway.json"))
                .start()) {
            assertEquals(Optional.of(OwnerCode.CHECKOUT), code(Source.OWNER, l.port()));
        }
    }

    @Test
    void aGatewaySignatureIsRefusedFromAnyFolder() {
        try (PythonListener l = PythonListener.v4("127.0.0.1")
                .uid(GATEWAY_UID)
                .cwd(elsewhere)
                .arg(SIGNATURE)
                .start()) {
            assertEquals(Optional.of(OwnerCode.GATEWAY), code(Source.OWNER, l.port()));
        }
    }

    @Test
    void aWallProcessIsRefused() {
        try (PythonListener l =
                PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(elsewhere).start()) {
            wall.add(l.pid());
            try {
                assertEquals(Optional.of(OwnerCode.WALL), code(Source.OWNER, l.port()));
            } finally {
                wall.remove(l.pid());
            }
        }
    }

    @Test
    void anotherUsersSocketIsRefused() {
        try (PythonListener l =
                PythonListener.v4("127.0.0.1").uid(OTHER_UID).cwd(elsewhere).start()) {
            OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, l.port());
            assertEquals(Optional.of(OwnerCode.OTHER_USER), answer.code());
            assertEquals(List.of(), answer.evidence().processes());
        }
    }

    /** Issue 25: a root socket that no container's proxy holds is root's, Docker down or not. */
    @Test
    void aRootSocketWithDockerDownIsRootsWhenNoContainersProxyHoldsIt() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, s.getLocalPort());
            assertEquals(Optional.of(OwnerCode.ROOT), answer.code(), answer::toString);
            // Held by this JVM, or by a process the scan cannot see where a root process is unreadable.
            assertTrue(answer.detail().contains("could not be asked"), answer::toString);
        }
    }

    @Test
    void aReusePortPairIsRefusedWhenEitherProcessIs() {
        try (PythonListener addon = PythonListener.v4("127.0.0.1")
                        .uid(GATEWAY_UID)
                        .cwd(elsewhere)
                        .reusePort()
                        .start();
                PythonListener gateway = PythonListener.v4("127.0.0.1")
                        .port(addon.port())
                        .uid(GATEWAY_UID)
                        .cwd(checkout)
                        .reusePort()
                        .start()) {
            OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, gateway.port());
            assertEquals(Optional.of(OwnerCode.CHECKOUT), answer.code());
            assertEquals(2, answer.evidence().listeners().size());
        }
    }

    enum Shape {
        V4_WILDCARD(PythonListener.v4("0.0.0.0"), "127.0.0.1", true),
        DUAL_STACK(PythonListener.v6("::"), "127.0.0.1", true),
        DUAL_STACK_FOR_V6(PythonListener.v6("::"), "::1", true),
        V6ONLY_FOR_V4(PythonListener.v6("::").v6Only(), "127.0.0.1", false),
        V6ONLY_FOR_V6(PythonListener.v6("::").v6Only(), "::1", true),
        V4_MAPPED(PythonListener.v6("::ffff:127.0.0.1"), "127.0.0.1", true),
        OTHER_LOOPBACK(PythonListener.v4("127.0.0.2"), "127.0.0.1", false),
        BOUND_TO_LO(PythonListener.v4("0.0.0.0").device("lo"), "127.0.0.1", true),
        UNSPECIFIED_V4_TARGET(PythonListener.v4("127.0.0.1"), "0.0.0.0", true),
        UNSPECIFIED_V6_TARGET(PythonListener.v6("::1").v6Only(), "::", true);

        final PythonListener.Builder listener;
        final InetAddress target;
        final boolean answers;

        Shape(PythonListener.Builder listener, String target, boolean answers) {
            this.listener = listener;
            this.target = InetAddress.ofLiteral(target);
            this.answers = answers;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void eachListenerShape(Shape shape) {
        try (PythonListener l = shape.listener.uid(GATEWAY_UID).cwd(elsewhere).start()) {
            OwnerAnswer answer = ask(Source.OWNER, shape.target, l.port());
            assertEquals(
                    shape.answers ? Optional.empty() : Optional.of(OwnerCode.NONE), answer.code(), answer::toString);
        }
    }

    /**
     * Regression (issue 9, item 1): {@code ::ffff:127.0.0.1} was judged as IPv6, by the gateway
     * user's V6ONLY {@code [::]:P} alone, while the connection lands on another uid's
     * {@code 127.0.0.1:P}.
     */
    @Test
    void aMappedTargetIsJudgedByTheIpv4ListenerNotAV6OnlyWildcard() {
        try (PythonListener v6Only = PythonListener.v6("::")
                        .v6Only()
                        .uid(GATEWAY_UID)
                        .cwd(elsewhere)
                        .start();
                PythonListener v4 = PythonListener.v4("127.0.0.1")
                        .port(v6Only.port())
                        .uid(OTHER_UID)
                        .start()) {
            assertEquals(v6Only.port(), v4.port());
            assertTrue(
                    ask(Source.OWNER, InetAddress.ofLiteral("::"), v6Only.port())
                            .allowed(),
                    "the v6 side");
            for (InetAddress target : List.of(mapped(LOOPBACK), compatible(LOOPBACK))) {
                OwnerAnswer answer = ask(Source.OWNER, target, v4.port());
                assertEquals(Optional.of(OwnerCode.OTHER_USER), answer.code(), answer::toString);
                assertEquals(
                        List.of(OTHER_UID),
                        answer.evidence().listeners().stream()
                                .map(OwnerEvidence.Listener::uid)
                                .toList());
            }
        }
    }

    /** {@code ::ffff:a.b.c.d} kept as an IPv6 address, the way the relay's literal parser keeps it. */
    static InetAddress mapped(InetAddress v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4.getAddress(), 0, b, 12, 4);
        return v6(b);
    }

    /** {@code ::a.b.c.d}, IPv4-compatible. */
    static InetAddress compatible(InetAddress v4) {
        byte[] b = new byte[16];
        System.arraycopy(v4.getAddress(), 0, b, 12, 4);
        return v6(b);
    }

    private static InetAddress v6(byte[] b) {
        try {
            return java.net.Inet6Address.getByAddress(null, b, -1);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aListenerBoundToAnotherDeviceDoesNotAnswer() throws SocketException {
        String device = NetworkInterface.networkInterfaces()
                .filter(OwnerCheckTest::up)
                .filter(i -> !i.getName().equals("lo"))
                .map(NetworkInterface::getName)
                .findFirst()
                .orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(device != null, "no network device besides lo");
        try (PythonListener l = PythonListener.v4("0.0.0.0")
                .device(device)
                .uid(GATEWAY_UID)
                .cwd(elsewhere)
                .start()) {
            OwnerAnswer answer = ask(Source.OWNER, LOOPBACK, l.port());
            assertEquals(Optional.of(OwnerCode.NONE), answer.code(), answer::toString);
        }
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp();
        } catch (SocketException e) {
            return false;
        }
    }

    @Test
    void theCheckNeverBlocksItsCaller() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(LOOPBACK, 0));
            var future = check.check(new OwnerQuery("studio", Source.OWNER, LOOPBACK, s.getLocalPort()));
            assertEquals(Optional.of(OwnerCode.ROOT), future.join().code());
        }
    }
}
