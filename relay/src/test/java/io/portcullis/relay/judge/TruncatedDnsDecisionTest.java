package io.portcullis.relay.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.dnsclient.NettyResolver;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The internet shape over the real resolver and a real DNS server whose UDP answers are truncated. */
class TruncatedDnsDecisionTest {
    static EventLoopGroup group;
    static ZoneDnsServer server;
    static NettyResolver resolver;

    @BeforeAll
    static void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Zone zone = new Zone()
                // Over UDP only the first address fits; the loopback one is in the rest.
                .set("cut.example", DnsAnswer.truncated(1, "93.184.216.34", "127.0.0.1"))
                .set("cut6.example", DnsAnswer.truncated(1, "2606:2800:220:1::1", "::1"))
                .set("whole.example", DnsAnswer.truncated(2, "93.184.216.34", "93.184.216.35"));
        server = ZoneDnsServer.start(zone, InetAddress.getLoopbackAddress(), 0);
        resolver =
                new NettyResolver(group.next(), new HostConfig.Dns(List.of(server.address()), Duration.ofMillis(2000)));
    }

    @AfterAll
    static void stop() {
        resolver.close();
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "cut.example:443, not-global-unicast",
        "cut6.example:443, not-global-unicast",
        "whole.example:443, allow"
    })
    void aTruncatedAnswerIsJudgedWhole(String target, String expected) throws Exception {
        // Regression: the part of the answer that fit in UDP was judged, and allowed.
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", """
                {"id": "studio", "network": "internet", "hosts": []}""");
        Verdict verdict = new PolicyJudge(
                        new Rules(HostConfig.DEFAULTS),
                        resolver,
                        () -> OwnAddresses.NONE,
                        OwnerCheck.failClosed("no owner check here"))
                .decide(spawn, Request.connect(target))
                .get(5, TimeUnit.SECONDS);

        assertEquals(expected, PolicyJudgeTest.outcome(verdict), verdict.toString());
    }
}
