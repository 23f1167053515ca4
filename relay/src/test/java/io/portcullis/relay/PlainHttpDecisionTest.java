package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.RecordingOrigin;
import io.portcullis.relay.testing.SpawnClient;
import io.portcullis.relay.testing.TestEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A plain HTTP request is decided by the relay's real judge like a CONNECT to the same entry:
 * the entry's scheme, the manifest-default rules (R12) and the owner check for this host's own
 * addresses, with the entry's source. The owner check is a fake through its seam; the origin is
 * real and records what arrived.
 */
class PlainHttpDecisionTest {
    @TempDir
    Path parent;

    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private final List<OwnerQuery> asked = new CopyOnWriteArrayList<>();
    private RecordingOrigin origin;
    private Relay relay;

    @AfterEach
    void closeAll() throws Exception {
        relay.close();
        origin.close();
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "http  | owner   | allow        | 200 | -",
                "http  | owner   | other-user   | 403 | owner-other-user",
                "http  | default | allow        | 403 | default-gateway-port",
                "https | owner   | allow        | 403 | not-listed",
            })
    void theOwnerCheckAndTheEntrysRulesDecideAPlainHttpRequest(
            String scheme, String source, String owner, int status, String code) throws Exception {
        origin = RecordingOrigin.ok("mine");
        int gatewayPort = source.equals("default") ? origin.port() : 0;
        OwnerConfig d = OwnerConfig.DEFAULTS;
        HostConfig host = HostConfig.DEFAULTS.withOwner(d.withGateway(d.gatewayUid(), gatewayPort));
        OwnerCheck check = query -> {
            asked.add(query);
            OwnerEvidence none = OwnerEvidence.NONE;
            return CompletableFuture.completedFuture(
                    owner.equals("allow")
                            ? OwnerAnswer.allow("the add-on's own service", none)
                            : OwnerAnswer.deny(OwnerCode.OTHER_USER, "uid 1001", none));
        };
        relay = Relay.builder(host)
                .directory(parent)
                .decisions(decisions::add)
                .ownerCheck(check)
                .start();
        SpawnHandle spawn =
                relay.open(SpawnPolicyJson.parse("spawn.json", """
                {"id": "studio", "hosts": [{"target": "127.0.0.2:%d", "scheme": "%s", "source": "%s"}]}""".formatted(origin.port(), scheme, source)));
        TestEntry.handOver(spawn);

        String answer;
        try (SpawnClient client = SpawnClient.open(
                spawn.proxyPort(),
                "GET http://127.0.0.2:%d/x HTTP/1.1\r\nHost: 127.0.0.2:%d\r\n\r\n"
                        .formatted(origin.port(), origin.port()))) {
            answer = new String(client.readToEnd(), StandardCharsets.ISO_8859_1);
        }

        assertTrue(answer.startsWith("HTTP/1.1 " + status + " "), answer);
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertNotNull(decision);
        assertEquals(code.equals("-") ? null : code, Line.of(decision).code(), decision.toString());
        boolean asksOwner = scheme.equals("http") && source.equals("owner");
        assertEquals(
                asksOwner ? List.of(OwnerQuery.Source.OWNER) : List.of(),
                asked.stream().map(OwnerQuery::source).toList());
        assertEquals(status == 200 ? 1 : 0, origin.connections());
    }
}
