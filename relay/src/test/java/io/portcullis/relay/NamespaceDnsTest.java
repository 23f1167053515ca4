package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import io.portcullis.relay.testing.TestEntry;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.Zone;
import io.portcullis.world.ZoneDnsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
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
        TestEntry.handOver(spawn.socket(), spawn.handoffKey(), spawn.proxyPort(), spawn.forwards(), spawn.door(), true);
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
        assertEquals(code.equals("allow") ? null : code, Line.of(decision).code(), decision.toString());
        String bare = name.toLowerCase(Locale.ROOT).replaceAll("\\.$", "");
        assertEquals(worldQueries > 0, zone.queries(bare) > 0, "whether the world's DNS was asked");
    }

    /**
     * A flood of queries (1,200 as fast as one socket sends them) gets at most the burst and the
     * rate answered; the rest is refused {@code limit-rate}, which the log folds.
     */
    @org.junit.jupiter.api.Test
    void aQueryFloodIsHeldToTheSpawnsRate() throws Exception {
        open("listed");
        int sent = 1200;
        int[] codes = new int[16];
        long started = System.nanoTime();
        try (DatagramChannel channel = DatagramChannel.open()) {
            channel.connect(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 53));
            channel.configureBlocking(false);
            ByteBuffer answer = ByteBuffer.allocate(512);
            // In batches of 50, each answered before the next: no datagram is lost to a full buffer.
            for (int batch = 0; batch < sent / 50; batch++) {
                for (int i = 0; i < 50; i++) {
                    channel.write(ByteBuffer.wrap(query(batch * 50 + i, "nas.lan")));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                int got = 0;
                while (got < 50 && System.nanoTime() < deadline) {
                    answer.clear();
                    if (channel.read(answer) > 3) {
                        codes[answer.get(3) & 0x0f]++;
                        got++;
                    } else {
                        Thread.sleep(1);
                    }
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        int allowed = codes[0];
        assertTrue(allowed >= 400 && allowed <= 400 + 200 * seconds + 1, allowed + " answered in " + seconds + " s");
        assertEquals(sent, codes[0] + codes[5], java.util.Arrays.toString(codes));
        if (seconds < 3) {
            assertTrue(codes[5] > 0, "nothing refused: " + java.util.Arrays.toString(codes));
        }
        boolean folded = false;
        for (Decision decision = decisions.poll(5, TimeUnit.SECONDS);
                decision != null && !folded;
                decision = decisions.poll(1, TimeUnit.SECONDS)) {
            folded = "limit-rate".equals(Line.of(decision).code());
        }
        assertTrue(folded, "no limit-rate line");
    }

    /** A DNS query with {@code id} for the A records of {@code name}, recursion desired. */
    private static byte[] query(int id, String name) {
        ByteBuffer out = ByteBuffer.allocate(512);
        out.putShort((short) id)
                .putShort((short) 0x0100)
                .putShort((short) 1)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 0);
        for (String label : name.split("\\.")) {
            out.put((byte) label.length()).put(label.getBytes(StandardCharsets.US_ASCII));
        }
        out.put((byte) 0).putShort((short) 1).putShort((short) 1);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }
}
