package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.world.DnsAnswer;
import io.portcullis.relay.world.Zone;
import io.portcullis.relay.world.ZoneDnsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The namespace's DNS (SPEC R24) as a resolver sees it: {@code dig} asks the spawn's UDP
 * 127.0.0.1:53, handed over like every other socket; the relay's own lookups go to the world's DNS
 * server, which counts what it was asked.
 */
class NamespaceDnsTest {
    private static final OwnerCheck ALLOW =
            query -> CompletableFuture.completedFuture(OwnerAnswer.allow("allowed", OwnerEvidence.NONE));

    @TempDir
    Path parent;

    private final Zone zone = new Zone();
    private final BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
    private ZoneDnsServer world;
    private Relay relay;

    @BeforeEach
    void start() throws Exception {
        zone.set("www.example.test", DnsAnswer.of("93.184.77.10", "2001:4860:77::10"));
        zone.set("nas.lan", DnsAnswer.of("192.168.77.10"));
        zone.set("lan.test", DnsAnswer.of("192.168.77.11"));
        zone.set("unlisted.test", DnsAnswer.of("93.184.77.12"));
        zone.set("private.test", DnsAnswer.of("192.168.77.12"));
        world = ZoneDnsServer.start(zone, InetAddress.ofLiteral("127.0.0.3"), 0);
        relay = Relay.builder(HostConfigJson.parse("host", """
                        {"dns": {"servers": ["%s"], "timeoutMillis": 1000}}""".formatted(world.hostConfigForm())))
                .directory(parent)
                .decisions(decisions::add)
                .ownerCheck(ALLOW)
                .start();
    }

    @AfterEach
    void stop() {
        relay.close();
        world.close();
    }

    private void open(String network) throws Exception {
        SpawnHandle spawn = relay.open(SpawnPolicyJson.parse("spawn", """
                {"id": "dns", "network": "%s", "hosts": [
                  {"target": "nas.lan:5432", "scheme": "tcp"},
                  {"target": "db.lan:6432", "scheme": "tcp"},
                  {"target": "nas.lan:22", "scheme": "tcp"},
                  {"target": "www.example.test:443", "scheme": "https"},
                  {"target": "lan.test:443", "scheme": "https"}]}""".formatted(network)));
        TestEntry.handOver(spawn.socket(), spawn.proxyPort(), spawn.forwards(), spawn.door(), true);
    }

    /** {@code dig}'s status and answers, one line: {@code NOERROR 127.77.0.1}. */
    private static String dig(String name, String type) throws IOException, InterruptedException {
        Process dig = new ProcessBuilder(
                        "dig",
                        "@127.0.0.1",
                        "-p",
                        "53",
                        "+tries=1",
                        "+time=5",
                        "+noall",
                        "+comments",
                        "+answer",
                        name,
                        type)
                .redirectErrorStream(true)
                .start();
        String out = new String(dig.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(dig.waitFor(20, TimeUnit.SECONDS), out);
        String status = out.replaceAll("(?s).*status: ([A-Z]+),.*", "$1");
        List<String> answers = new ArrayList<>();
        for (String line : out.lines().toList()) {
            if (!line.startsWith(";") && !line.isBlank()) {
                String[] words = line.trim().split("\\s+");
                answers.add(words[words.length - 1]);
            }
        }
        return (status + " " + String.join(" ", answers)).strip();
    }

    @ParameterizedTest(name = "{0}: {1} {2} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "listed   | nas.lan            | A     | NOERROR 127.77.0.1          | allow | 0",
                "listed   | NAS.lan.           | A     | NOERROR 127.77.0.1          | allow | 0",
                "listed   | db.lan             | A     | NOERROR 127.77.0.2          | allow | 0",
                "listed   | nas.lan            | AAAA  | NOERROR                     | allow | 0",
                "listed   | nas.lan            | TXT   | NOERROR                     | allow | 0",
                "listed   | www.example.test   | A     | NOERROR 93.184.77.10        | allow | 1",
                "listed   | www.example.test   | AAAA  | NOERROR 2001:4860:77::10    | allow | 1",
                "listed   | www.example.test   | HTTPS | NOERROR                     | allow | 0",
                "listed   | unlisted.test      | A     | REFUSED                     | not-listed | 0",
                "listed   | 93.184.77.12       | A     | REFUSED                     | bad-request | 0",
                "internet | unlisted.test      | A     | NOERROR 93.184.77.12        | allow | 1",
                "listed   | lan.test           | A     | NOERROR 192.168.77.11       | allow | 1",
                "internet | private.test       | A     | REFUSED                     | not-global-unicast | 1",
                "listed   | private.test       | A     | REFUSED                     | not-listed | 0",
                "none     | nas.lan            | A     | REFUSED                     | mode-none | 0",
                "none     | www.example.test   | A     | REFUSED                     | mode-none | 0",
            })
    void eachQuestionIsAnsweredFromThePolicy(
            String network, String name, String type, String answer, String code, int worldQueries) throws Exception {
        open(network);

        assertEquals(answer, dig(name, type));

        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        assertEquals("dns", decision.kind(), decision.toString());
        assertEquals(code.equals("allow") ? null : code, decision.code(), decision.toString());
        String bare = name.toLowerCase(Locale.ROOT).replaceAll("\\.$", "");
        assertEquals(worldQueries > 0, zone.queries(bare) > 0, "whether the world's DNS was asked");
    }
}
