package io.portcullis.relay.dnsclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.dns.DnsNameResolverException;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The real resolver against a DNS server on loopback whose answers the test controls. */
class NettyResolverTest {
    static EventLoopGroup group;
    static Zone zone;
    static ZoneDnsServer server;
    static NettyResolver resolver;

    @BeforeAll
    static void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        zone = new Zone()
                .set("both.test", DnsAnswer.of("192.0.2.1", "2001:db8::1"))
                .set("v6only.test", DnsAnswer.of("2001:db8::2"))
                .set("nodata.test", DnsAnswer.empty())
                .set("nx.test", DnsAnswer.nxdomain())
                .set("fail.test", DnsAnswer.servfail())
                .set("slow.test", DnsAnswer.silent())
                .set("big.test", DnsAnswer.truncated(1, "93.184.216.34", "127.0.0.1", "2606:2800:220:1::1", "::1"))
                .set("port1.test", DnsAnswer.of("93.184.216.34"))
                .set("port2.test", DnsAnswer.of("93.184.216.34"))
                .set("port3.test", DnsAnswer.of("93.184.216.34"));
        server = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
        resolver =
                new NettyResolver(group.next(), new HostConfig.Dns(List.of(server.address()), Duration.ofMillis(2000)));
        // The first query pays for class loading and channel set-up; the table measures the rest.
        resolver.resolve("nodata.test").join();
    }

    @AfterAll
    static void stop() {
        resolver.close();
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            both.test    | RESOLVED | 192.0.2.1 2001:db8:0:0:0:0:0:1
            v6only.test  | RESOLVED | 2001:db8:0:0:0:0:0:2
            nodata.test  | EMPTY    |
            nx.test      | FAILED   |
            fail.test    | FAILED   |
            slow.test    | TIMEOUT  |
            """)
    void outcomes(String name, Resolution.Status outcome, String addresses) {
        long start = System.nanoTime();
        Resolution resolution = resolver.resolve(name).join();
        assertEquals(outcome, resolution.status(), resolution.detail());
        assertEquals(
                addresses == null ? List.of() : List.of(addresses.split(" ")),
                resolution.addresses().stream().map(InetAddress::getHostAddress).toList());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "bounded by the DNS timeout");
    }

    @Test
    void etcHostsComesFirst() {
        Resolution resolution = resolver.resolve("localhost").join();
        assertEquals(Resolution.Status.RESOLVED, resolution.status());
        assertEquals("127.0.0.1", resolution.addresses().get(0).getHostAddress());
    }

    @Test
    void aTruncatedUdpAnswerIsAskedAgainOverTcpAndTheWholeAnswerCounts() {
        // Regression: the part of a truncated answer that fit in UDP was taken as the whole answer.
        int before = zone.queries("big.test");
        Resolution resolution = resolver.resolve("big.test").join();
        assertEquals(
                List.of("93.184.216.34", "127.0.0.1", "2606:2800:220:1:0:0:0:1", "0:0:0:0:0:0:0:1"),
                resolution.addresses().stream().map(InetAddress::getHostAddress).toList(),
                resolution.detail());
        assertEquals(4, zone.queries("big.test") - before, "A and AAAA, each over UDP then TCP");
    }

    @Test
    void aTruncatedAnswerWhoseTcpRetryFailsIsAFailureNotThePartThatFit() throws InterruptedException {
        // Regression: netty falls back to the truncated UDP answer when the TCP retry fails.
        Zone cut = new Zone()
                .set("big.test", DnsAnswer.truncated(1, "93.184.216.34", "127.0.0.1"))
                .set("cut-a.test", DnsAnswer.truncated(1, "93.184.216.34", "127.0.0.1", "2606:2800:220:1::1"));
        try (ZoneDnsServer udpOnly = ZoneDnsServer.start(cut, InetAddress.getLoopbackAddress(), 0);
                NettyResolver partial = new NettyResolver(
                        group.next(), new HostConfig.Dns(List.of(udpOnly.address()), Duration.ofMillis(2000)))) {
            udpOnly.stopTcp();

            Resolution resolution = partial.resolve("big.test").join();

            assertEquals(Resolution.Status.FAILED, resolution.status(), resolution.toString());
            assertEquals(
                    Resolution.Status.FAILED,
                    partial.resolve("cut-a.test").join().status(),
                    "the A answer is cut, the AAAA answer whole");
        }
    }

    @Test
    void eachQueryLeavesFromAFreshSourcePort() {
        // Regression: every query left from the one port the resolver bound at start.
        List<Integer> ports = new ArrayList<>();
        for (String name : List.of("port1.test", "port2.test", "port3.test")) {
            int before = server.udpSourcePorts().size();
            assertEquals(
                    Resolution.Status.RESOLVED, resolver.resolve(name).join().status());
            List<Integer> all = server.udpSourcePorts();
            assertEquals(2, all.size() - before, "one A and one AAAA query for " + name + ": " + all);
            ports.addAll(all.subList(before, all.size()));
        }
        assertEquals(ports.size(), Set.copyOf(ports).size(), "a port of its own for each query: " + ports);
    }

    @ParameterizedTest(name = "A {0}, AAAA {1} -> {2}")
    @CsvSource({
        "RESOLVED, RESOLVED, RESOLVED",
        "RESOLVED, EMPTY,    RESOLVED",
        "EMPTY,    RESOLVED, RESOLVED",
        "EMPTY,    EMPTY,    EMPTY",
        "RESOLVED, FAILED,   FAILED",
        "FAILED,   RESOLVED, FAILED",
        "RESOLVED, TIMEOUT,  TIMEOUT",
        "FAILED,   TIMEOUT,  TIMEOUT",
        "EMPTY,    FAILED,   FAILED",
        "EMPTY,    UNREACHABLE, UNREACHABLE",
        "UNREACHABLE, TIMEOUT, TIMEOUT",
        "FAILED,   UNREACHABLE, FAILED"
    })
    void oneFamilyThatFailsFailsTheName(Resolution.Status v4, Resolution.Status v6, Resolution.Status expected) {
        assertEquals(
                expected,
                NettyResolver.combine("x.test", family(v4, "93.184.216.34"), family(v6, "2606:2800:220:1::1"))
                        .status());
    }

    @Test
    void aServerOnLoopbackThatStoppedIsUnreachableAtOnceNotANameWithoutAddresses() throws InterruptedException {
        ZoneDnsServer stopped = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
        InetSocketAddress address = stopped.address();
        stopped.close();
        try (NettyResolver gone =
                new NettyResolver(group.next(), new HostConfig.Dns(List.of(address), Duration.ofMillis(2000)))) {
            long start = System.nanoTime();
            Resolution resolution = gone.resolve("both.test").join();

            assertEquals(Resolution.Status.UNREACHABLE, resolution.status(), resolution.detail());
            assertTrue(resolution.detail().contains("nothing holds its port"), resolution.detail());
            assertTrue(
                    System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(1500),
                    "said at once, not at the timeout");
        }
    }

    /** The shapes of netty's failures, as netty builds them (seen against a server behind no route). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            unsent, network unreachable | UNREACHABLE | the DNS server 192.0.2.1:53 could not be reached: Network is unreachable
            unsent, port unreachable    | UNREACHABLE | the DNS server 192.0.2.1:53 could not be reached: Port unreachable
            no records                  | EMPTY       | has no A or AAAA record
            timed out                   | TIMEOUT     | timed out
            """)
    void anUnsentQueryIsUnreachableAndOnlyANameWithoutRecordsIsEmpty(
            String shape, Resolution.Status outcome, String detail) {
        InetSocketAddress server = new InetSocketAddress(literal("192.0.2.1"), 53);
        DefaultDnsQuestion question = new DefaultDnsQuestion("x.test.", DnsRecordType.A);
        Throwable cause = switch (shape) {
            case "unsent, network unreachable" ->
                new DnsNameResolverException(
                        server,
                        question,
                        "failed to send a query via UDP",
                        new SocketException("Network is unreachable"));
            case "unsent, port unreachable" ->
                new DnsNameResolverException(
                        server,
                        question,
                        "failed to send a query via UDP",
                        new PortUnreachableException("Port unreachable"));
            case "timed out" -> new DnsNameResolverTimeoutException(server, question, "query timed out");
            default -> null;
        };
        UnknownHostException failure = new UnknownHostException("Failed to resolve 'x.test' [A(1)]");
        failure.initCause(cause);

        Resolution resolution = NettyResolver.failure("x.test", failure);

        assertEquals(outcome, resolution.status(), resolution.detail());
        assertTrue(resolution.detail().contains(detail), resolution.detail());
    }

    private static InetAddress literal(String text) {
        try {
            return InetAddress.getByName(text); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    private static Resolution family(Resolution.Status outcome, String address) {
        return outcome == Resolution.Status.RESOLVED
                ? Resolution.resolved(List.of(literal(address)))
                : Resolution.failed(outcome, outcome.toString());
    }
}
