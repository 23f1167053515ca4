package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.judge.PolicyJudge;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import io.portcullis.relay.testing.LoopbackOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 #11: {@link SpawnHandle#update} changes a spawn's policy in place, pinned like a reload:
 * the connections accepted from then on are judged by the new policy, an open tunnel keeps the one
 * it was decided under, and a policy that changes the spawn's sockets is refused whole. The relay
 * judges with the policy's own judge; the targets are listed https entries, whose tunnels start
 * with a real ClientHello (the JDK's), echoed by a loopback origin.
 */
@Timeout(30)
class SpawnUpdateTest {
    private static final int PROXY = 28280;

    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private Relay relay;
    private LoopbackOrigin origin;

    @AfterEach
    void close() throws Exception {
        if (relay != null) {
            relay.close();
        }
        if (origin != null) {
            origin.close();
        }
    }

    private String policy(String host) {
        return """
                {"id": "studio", "proxyPort": %d, "hosts": [{"target": "%s:%d", "scheme": "https"}]}""".formatted(PROXY, host, origin.port());
    }

    private SpawnHandle open() throws Exception {
        origin = LoopbackOrigin.echo(InetAddress.ofLiteral("127.0.0.1"));
        Resolver resolver = name ->
                CompletableFuture.completedFuture(Resolution.resolved(List.of(InetAddress.ofLiteral("127.0.0.1"))));
        OwnAddresses own = new OwnAddresses(Set.of(InetAddress.ofLiteral("127.0.0.1")));
        relay = Relay.builder(HostConfig.DEFAULTS)
                .directory(parent)
                .judge(new PolicyJudge(
                        new Rules(HostConfig.DEFAULTS),
                        resolver,
                        () -> own,
                        query -> CompletableFuture.completedFuture(OwnerAnswer.allow("echo", OwnerEvidence.NONE))))
                .decisions(decisions::add)
                .start();
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn.json", policy("old.test")));
        TestEntry.handOver(spawn);
        return spawn;
    }

    /** A CONNECT to {@code host}: its answer's status line, and once it is 200, the tunnel carries a ClientHello. */
    private SpawnClient connect(String host, List<SpawnClient> open) throws Exception {
        SpawnClient client = SpawnClient.open(
                PROXY, "CONNECT " + host + ":" + origin.port() + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        open.add(client);
        return client;
    }

    private static void tunnels(SpawnClient client, String host) throws Exception {
        assertEquals("HTTP/1.1 200 Connection established\r\n\r\n", client.readHead(), host);
        byte[] hello = clientHello(host);
        client.write(hello);
        assertArrayEquals(hello, client.readExactly(hello.length), "the ClientHello went through and came back");
    }

    private static void refused(SpawnClient client, String code) throws Exception {
        String head = client.readHead();
        assertTrue(head.startsWith("HTTP/1.1 403 ") && head.contains("Portcullis-Deny: " + code), head);
    }

    /** The first flight of the JDK's TLS client for {@code host}: one ClientHello naming it. */
    private static byte[] clientHello(String host) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, null, null);
        SSLEngine engine = context.createSSLEngine(host, 443);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(host)));
        engine.setSSLParameters(parameters);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(ByteBuffer.allocate(0), out);
        return Arrays.copyOf(out.array(), out.position());
    }

    private Decision next() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision, "no decision");
        return decision;
    }

    @Test
    void newConnectionsTakeTheNewPolicyWhileAnOpenTunnelKeepsItsOwn() throws Exception {
        SpawnHandle spawn = open();
        List<SpawnClient> clients = new ArrayList<>();
        try {
            SpawnClient old = connect("old.test", clients);
            tunnels(old, "old.test");
            refused(connect("new.test", clients), "not-listed");
            assertEquals(1, next().revision(), "the refusal was judged under revision 1");

            long revision = spawn.update(SpawnPolicyJson.parse("next.json", policy("new.test")));

            assertEquals(2, revision);
            assertEquals(2, spawn.revision());
            assertEquals(
                    "new.test:" + origin.port(),
                    spawn.policy().hosts().getFirst().target().toString());
            tunnels(connect("new.test", clients), "new.test");
            refused(connect("old.test", clients), "not-listed");
            Decision refusal = next();
            assertEquals("old.test:" + origin.port(), refusal.target().orElseThrow());
            assertEquals(2, refusal.revision());
            old.write("still open");
            assertEquals("still open", new String(old.readExactly("still open".length()), StandardCharsets.US_ASCII));
        } finally {
            for (SpawnClient client : clients) {
                client.close();
            }
        }
        List<Decision> ends = List.of(next(), next());
        assertEquals(
                Set.of("old.test:" + origin.port() + " 1", "new.test:" + origin.port() + " 2"),
                Set.of(
                        ends.get(0).target().orElseThrow() + " " + ends.get(0).revision(),
                        ends.get(1).target().orElseThrow() + " " + ends.get(1).revision()),
                "each tunnel ends under the revision it was decided with");
    }

    @Test
    void aPolicyThatChangesTheSocketsIsRefusedWholeAndTheOldOneStays() throws Exception {
        SpawnHandle spawn = open();
        SpawnPolicy next = SpawnPolicyJson.parse(
                "next.json",
                policy("new.test")
                        .replace("\"proxyPort\": " + PROXY, "\"proxyPort\": " + (PROXY + 1))
                        .replace("\"id\": \"studio\"", "\"id\": \"kiosk\""));

        ConfigException refused = assertThrows(ConfigException.class, () -> spawn.update(next));

        assertEquals(2, refused.problems().size(), refused.problems().toString());
        assertTrue(refused.problems().get(0).startsWith("id: \"kiosk\" (expected: \"studio\""), refused.getMessage());
        assertTrue(
                refused.problems().get(1).startsWith("proxyPort: " + (PROXY + 1) + " (expected: " + PROXY),
                refused.getMessage());
        assertEquals(1, spawn.revision());
        assertEquals(
                "old.test:" + origin.port(),
                spawn.policy().hosts().getFirst().target().toString());
        List<SpawnClient> clients = new ArrayList<>();
        try {
            tunnels(connect("old.test", clients), "old.test");
        } finally {
            for (SpawnClient client : clients) {
                client.close();
            }
        }
    }

    @Test
    void aClosedSpawnTakesNoPolicy() throws Exception {
        SpawnHandle spawn = open();
        spawn.close();

        assertThrows(
                IllegalStateException.class,
                () -> spawn.update(SpawnPolicyJson.parse("next.json", policy("new.test"))));
    }
}
