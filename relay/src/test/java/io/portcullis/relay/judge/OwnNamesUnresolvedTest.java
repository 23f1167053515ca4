package io.portcullis.relay.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.dnsclient.NettyResolver;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.rules.Rules;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Own names that fail to resolve failed open (R15): with {@code ownNames} answering NXDOMAIN, the
 * internet shape allowed this host's own public address. Names come from the world's DNS server.
 */
class OwnNamesUnresolvedTest {
    static final String OWN_NAME = "gate.test";
    static final String OWN_PUBLIC = "93.184.216.99";

    static EventLoopGroup group;
    static Zone zone;
    static ZoneDnsServer dns;

    @BeforeAll
    static void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        zone = new Zone();
        dns = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
    }

    @AfterAll
    static void stop() {
        dns.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void names() {
        zone.clear();
        zone.set("public.test", DnsAnswer.of("93.184.216.34"));
        zone.set("self.test", DnsAnswer.of(OWN_PUBLIC));
        zone.set("nas.lan", DnsAnswer.of("192.168.1.10"));
    }

    /** Every owner check allows: this test is about the internet shape, not the owner. */
    static final OwnerCheck ALLOW =
            query -> CompletableFuture.completedFuture(OwnerAnswer.allow("allowed", OwnerEvidence.NONE));

    static SpawnPolicy spawn() throws ConfigException {
        return SpawnPolicyJson.parse("spawn", """
                {"id": "s", "network": "internet", "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}""");
    }

    HostConfig host() throws ConfigException {
        return HostConfigJson.parse("host", """
                {"ownNames": ["%s"], "dns": {"servers": ["%s"], "timeoutMillis": 500}}""".formatted(OWN_NAME, dns.hostConfigForm()));
    }

    static String code(Verdict verdict) {
        return verdict instanceof Verdict.Deny deny ? deny.code().code() : "allow";
    }

    @ParameterizedTest(name = "own name {0}: {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            nxdomain | self.test:443        | own-names-unresolved
            nxdomain | public.test:443      | own-names-unresolved
            nxdomain | 93.184.216.99:443    | own-names-unresolved
            nxdomain | 93.184.216.34:443    | own-names-unresolved
            nxdomain | nas.lan:8443         | allow
            servfail | public.test:443      | own-names-unresolved
            silent   | public.test:443      | own-names-unresolved
            empty    | public.test:443      | own-names-unresolved
            resolves | self.test:443        | own-address
            resolves | 93.184.216.99:443    | own-address
            resolves | public.test:443      | allow
            resolves | nas.lan:8443         | allow
            """)
    void internetShapeRefusesWhileAnOwnNameIsUnresolved(String answer, String target, String code) throws Exception {
        zone.set(
                OWN_NAME,
                switch (answer) {
                    case "nxdomain" -> DnsAnswer.nxdomain();
                    case "servfail" -> DnsAnswer.servfail();
                    case "silent" -> DnsAnswer.silent();
                    case "empty" -> DnsAnswer.empty();
                    default -> DnsAnswer.of(OWN_PUBLIC);
                });
        HostConfig host = host();
        try (NettyResolver resolver = new NettyResolver(group.next(), host.dns());
                OwnAddressBook book = new OwnAddressBook(host, List::of, resolver)) {
            book.refresh().get(5, TimeUnit.SECONDS);
            Verdict verdict = new PolicyJudge(new Rules(host), resolver, book, ALLOW)
                    .decide(spawn(), Request.connect(target))
                    .get(5, TimeUnit.SECONDS);
            assertEquals(code, code(verdict), verdict.toString());
        }
    }

    /** The refusal lasts while the name fails, and ends with the first refresh that resolves it. */
    @Test
    void keepsTryingAndRecovers() throws Exception {
        zone.set(OWN_NAME, DnsAnswer.nxdomain());
        HostConfig host = host();
        try (NettyResolver resolver = new NettyResolver(group.next(), host.dns());
                OwnAddressBook book = new OwnAddressBook(host, List::of, resolver)) {
            PolicyJudge judge = new PolicyJudge(new Rules(host), resolver, book, ALLOW);
            assertEquals("own-names-unresolved", code(decide(judge)), "before the first refresh");
            book.refresh().get(5, TimeUnit.SECONDS);
            assertEquals("own-names-unresolved", code(decide(judge)), "after a refresh that failed");
            assertEquals(0, dnsQueriesFor("public.test"), "a refused target is not resolved");
            zone.set(OWN_NAME, DnsAnswer.of(OWN_PUBLIC));
            book.refresh().get(5, TimeUnit.SECONDS);
            assertEquals("allow", code(decide(judge)));
        }
    }

    static int dnsQueriesFor(String name) {
        return zone.queries(name);
    }

    static Verdict decide(PolicyJudge judge) throws Exception {
        return judge.decide(spawn(), Request.connect("public.test:443")).get(5, TimeUnit.SECONDS);
    }
}
