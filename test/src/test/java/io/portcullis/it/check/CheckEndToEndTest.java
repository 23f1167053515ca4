package io.portcullis.it.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.dns.DnsRecordType;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Rows;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.TestWorld;
import io.portcullis.world.DnsAnswer;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./portcullis check} as a user runs it, inside the test JVM's namespace, with the host
 * configuration pointing at the world's DNS server. The namespace's own link addresses
 * (93.184.77.1 and the like) are this host's own addresses for the check.
 */
@NetnsTest
class CheckEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String INTERNET_SPAWN = """
            {"id": "e2e", "network": "internet", "hosts": [
              {"target": "nas.lan:8443", "scheme": "https"},
              {"target": "self.test:8443", "scheme": "https"},
              {"target": "meta.test:8080", "scheme": "tcp"},
              {"target": "127.0.0.1:5000", "scheme": "tcp"}]}
            """;
    private static final String LISTED_SPAWN = """
            {"id": "e2e-listed", "network": "listed", "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}
            """;
    private static final String NONE_SPAWN = """
            {"id": "e2e-none", "network": "none", "hosts": [{"target": "nas.lan:8443", "scheme": "https"}]}
            """;

    @BeforeEach
    void zone() {
        world.zone()
                .set("www.example.test", DnsAnswer.of("93.184.77.10", "2001:4860:77::10"))
                .set("nas.lan", DnsAnswer.of("192.168.77.10"))
                .set("lan.test", DnsAnswer.of("192.168.77.11"))
                .set("mixed.test", DnsAnswer.of("93.184.77.10", "192.168.77.10"))
                .set("mixed6.test", DnsAnswer.of("93.184.77.10", "fd77:77::10"))
                .set("plain.test", DnsAnswer.of("93.184.77.10"))
                .set("gone.test", DnsAnswer.nxdomain())
                .set("hollow.test", DnsAnswer.empty())
                .set("broken.test", DnsAnswer.servfail())
                .set("slow.test", DnsAnswer.silent())
                .set("late.test", DnsAnswer.delayed(Duration.ofSeconds(6), DnsAnswer.of("93.184.77.10")))
                .set("self.test", DnsAnswer.of("93.184.77.1"))
                .set("portal.test", DnsAnswer.of("93.184.77.11"))
                .set("alias.test", DnsAnswer.of("93.184.77.11"))
                .set("v6own.test", DnsAnswer.of("2001:4860:77::11"))
                .set("meta.test", DnsAnswer.of("169.254.169.254"));
    }

    /** target | verdict | code | the addresses judged ("-": not asserted). */
    private static final List<String> INTERNET_ROWS = List.of(
            "nas.lan:8443             | allow | -                  | 192.168.77.10",
            "NAS.LAN.:8443            | allow | -                  | 192.168.77.10",
            "www.example.test:443     | allow | -                  | 93.184.77.10 2001:4860:77::10",
            "93.184.77.10:443         | allow | -                  | 93.184.77.10",
            "[2001:4860:77::10]:443   | allow | -                  | 2001:4860:77::10",
            "lan.test:443             | deny  | not-global-unicast | 192.168.77.11",
            "10.0.0.1:443             | deny  | not-global-unicast | 10.0.0.1",
            "mixed.test:443           | deny  | not-global-unicast | 93.184.77.10 192.168.77.10",
            "mixed6.test:443          | deny  | not-global-unicast | 93.184.77.10 fd77:77::10",
            "www.example.test:80      | deny  | port-not-allowed   | -",
            "93.184.77.10:8443        | deny  | port-not-allowed   | -",
            "gone.test:443            | deny  | dns-failed         | -",
            "broken.test:443          | deny  | dns-failed         | -",
            "hollow.test:443          | deny  | dns-empty          | -",
            "slow.test:443            | deny  | dns-timeout        | -",
            "late.test:443            | deny  | dns-timeout        | -",
            "self.test:443            | deny  | own-address        | 93.184.77.1",
            "93.184.77.1:443          | deny  | own-address        | 93.184.77.1",
            "portal.test:443          | deny  | own-address        | -",
            "alias.test:443           | deny  | own-address        | 93.184.77.11",
            "v6own.test:443           | deny  | own-address        | 2001:4860:77::11",
            "self.test:8443           | deny  | owner-none         | 93.184.77.1",
            "127.0.0.1:5000           | deny  | owner-none         | 127.0.0.1",
            "meta.test:8080           | deny  | deny-listed        | 169.254.169.254");

    private static final List<String> BAD_SPELLINGS = List.of(
            "0x7f.0.0.1:443",
            "127.1:443",
            "017.0.0.1:443",
            "2130706433:443",
            "[fe80::1%eth0]:443",
            "user@www.example.test:443",
            "www.example.test:0",
            "www.example.test:65536",
            "www.example.test",
            "www.example.test:44x",
            "[2001:4860:77::10:443",
            "a..b:443");

    /** One check run judges every row (a JVM start per row would take minutes); each row asserts its line. */
    private static Map<String, JsonNode> internetVerdicts;

    private static Map<String, JsonNode> badSpellingVerdicts;

    static Stream<Arguments> internetRows() {
        return Rows.of(INTERNET_ROWS);
    }

    @ParameterizedTest(name = "{0} -> {1} {2}")
    @MethodSource("internetRows")
    void internetSpawn(String target, String verdict, String code, String addresses) throws Exception {
        JsonNode line = internetVerdicts().get(target);
        assertEquals(target, line.path("target").asText(), line.toString());
        assertEquals(verdict, line.path("verdict").asText(), line.toString());
        assertEquals(code == null ? "" : code, line.path("code").asText(""), line.toString());
        if (addresses != null) {
            assertEquals(literals(addresses), addresses(line), line.toString());
        }
        assertFalse(line.path("detail").asText("").isBlank(), line.toString());
    }

    static Stream<String> badSpellings() {
        return BAD_SPELLINGS.stream();
    }

    @ParameterizedTest(name = "{0} -> bad-request")
    @MethodSource("badSpellings")
    void badSpellingsAreBadRequests(String target) throws Exception {
        JsonNode line = badSpellingVerdicts().get(target);
        assertEquals("deny", line.path("verdict").asText(), line.toString());
        assertEquals("bad-request", line.path("code").asText(), line.toString());
    }

    private static synchronized Map<String, JsonNode> internetVerdicts() throws Exception {
        if (internetVerdicts == null) {
            List<String> targets = internetRows().map(a -> (String) a.get()[0]).toList();
            internetVerdicts = byTarget(check(INTERNET_SPAWN, targets, ""), targets);
        }
        return internetVerdicts;
    }

    private static synchronized Map<String, JsonNode> badSpellingVerdicts() throws Exception {
        if (badSpellingVerdicts == null) {
            badSpellingVerdicts = byTarget(check(INTERNET_SPAWN, BAD_SPELLINGS, ""), BAD_SPELLINGS);
        }
        return badSpellingVerdicts;
    }

    /** The lines of a run that denied something, checked to come one per target in input order. */
    private static Map<String, JsonNode> byTarget(Run run, List<String> targets) throws IOException {
        assertEquals(1, run.exit(), run.toString());
        assertEquals(targets, targets(run), run.toString());
        Map<String, JsonNode> lines = new HashMap<>();
        for (String line : run.out().lines().toList()) {
            JsonNode json = JSON.readTree(line);
            lines.put(json.path("target").asText(), json);
        }
        return lines;
    }

    @Test
    void aNameThatCannotBeAllowedIsNeverSentToDns() throws Exception {
        check(INTERNET_SPAWN, List.of("plain.test:80"), "");
        check(NONE_SPAWN, List.of("nas.lan:8443"), "");
        assertEquals(0, world.zone().queries("plain.test"));
        assertEquals(0, world.zone().queries("nas.lan"));
    }

    @Test
    void aNameWhoseAnswerChangesIsResolvedOncePerTargetAndTheJudgedAddressesAreReported() throws Exception {
        world.zone().set("flip.test", DnsAnswer.of("93.184.77.10"), DnsAnswer.of("10.0.0.1"));
        JsonNode first = onlyLine(check(INTERNET_SPAWN, List.of("flip.test:443"), ""));
        assertEquals("allow", first.path("verdict").asText(), first.toString());
        assertEquals(literals("93.184.77.10"), addresses(first));
        assertEquals(1, world.zone().queries("flip.test", DnsRecordType.A));

        JsonNode second = onlyLine(check(INTERNET_SPAWN, List.of("flip.test:443"), ""));
        assertEquals("deny", second.path("verdict").asText(), second.toString());
        assertEquals("not-global-unicast", second.path("code").asText());
        assertEquals(literals("10.0.0.1"), addresses(second));
        assertEquals(2, world.zone().queries("flip.test", DnsRecordType.A));
    }

    @Test
    void aListedSpawnAllowsItsEntriesOnlyAndANoneSpawnNothing() throws Exception {
        Run listed = check(LISTED_SPAWN, List.of("nas.lan:8443", "www.example.test:443", "93.184.77.10:443"), "");
        assertEquals(List.of("allow", "deny", "deny"), field(listed, "verdict"), listed.toString());
        assertEquals(List.of("", "not-listed", "not-listed"), field(listed, "code"), listed.toString());
        Run none = check(NONE_SPAWN, List.of("nas.lan:8443", "www.example.test:443", "127.0.0.1:5000"), "");
        assertEquals(List.of("mode-none", "mode-none", "mode-none"), field(none, "code"), none.toString());
        assertEquals(1, none.exit());
    }

    @Test
    void targetsComeFromStandardInputInOrderAndOneDenialMakesExitOne() throws Exception {
        Run allowed = check(INTERNET_SPAWN, List.of(), "nas.lan:8443\n\nwww.example.test:443\n");
        assertEquals(0, allowed.exit(), allowed.toString());
        assertEquals(List.of("nas.lan:8443", "www.example.test:443"), targets(allowed));

        Run mixed = check(INTERNET_SPAWN, List.of(), "www.example.test:443\nlan.test:443\nnas.lan:8443\n");
        assertEquals(1, mixed.exit(), mixed.toString());
        assertEquals(List.of("www.example.test:443", "lan.test:443", "nas.lan:8443"), targets(mixed));
    }

    @Test
    void argumentsKeepTheirOrderAndSpelling() throws Exception {
        Run run = check(INTERNET_SPAWN, List.of("www.example.test:443", "WWW.Example.Test.:443", "nas.lan:8443"), "");
        assertEquals(0, run.exit(), run.toString());
        assertEquals(List.of("www.example.test:443", "WWW.Example.Test.:443", "nas.lan:8443"), targets(run));
    }

    @ParameterizedTest(name = "{0} -> exit 2")
    @CsvSource(
            delimiter = '|',
            value = {
                "unknown spawn field | {\"id\": \"x\", \"netwrk\": \"internet\"}                        | netwrk",
                "wildcard entry      | {\"id\": \"x\", \"hosts\": [{\"target\": \"*.lan:80\", \"scheme\": \"tcp\"}]} | hosts[0]",
                "not json            | {\"id\":                                                            | ",
            })
    void aBrokenSpawnIsExitTwoWithTheProblemOnStandardError(String why, String spawn, String mention) throws Exception {
        Run run = check(spawn, List.of("nas.lan:8443"), "");
        assertEquals(2, run.exit(), run.toString());
        assertEquals("", run.out(), run.toString());
        assertFalse(run.err().isBlank());
        if (mention != null) {
            assertTrue(run.err().contains(mention), run.err());
        }
    }

    @Test
    void aBrokenHostConfigAndBadUsageAreExitTwo() throws Exception {
        Path spawn = write("spawn.json", INTERNET_SPAWN);
        Path host = write("host-bad.json", "{\"dns\": {\"servers\": [\"dns.example:53\"], \"timeoutMilis\": 5}}");
        Run badHost = Portcullis.run(
                List.of("check", "--spawn", spawn.toString(), "--host", host.toString(), "nas.lan:8443"), "");
        assertEquals(2, badHost.exit(), badHost.toString());
        assertTrue(badHost.err().contains("dns.servers") && badHost.err().contains("timeoutMilis"), badHost.err());

        Run noSpawn = Portcullis.run(List.of("check", "nas.lan:8443"), "");
        assertEquals(2, noSpawn.exit(), noSpawn.toString());
        Run missing = Portcullis.run(
                List.of("check", "--spawn", world.dir().resolve("absent.json").toString(), "nas.lan:8443"), "");
        assertEquals(2, missing.exit(), missing.toString());
        assertEquals("", missing.out());
    }

    /** Issue 25: a resolver that is not running was reported as a name without addresses (dns-empty). */
    @Test
    void aResolverThatIsNotRunningIsDnsUnreachableNamingIt() throws Exception {
        int port;
        try (DatagramSocket free = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path spawn = write("spawn.json", INTERNET_SPAWN);
        Path host = write("host-stopped-dns.json", "{\"dns\": {\"servers\": [\"127.0.0.1:" + port + "\"]}}");
        Run run = Portcullis.run(
                List.of("check", "--spawn", spawn.toString(), "--host", host.toString(), "www.example.test:443"), "");
        JsonNode line = onlyLine(run);
        assertEquals("dns-unreachable", line.path("code").asText(), line.toString());
        assertTrue(
                line.path("detail").asText().contains("127.0.0.1:" + port)
                        && line.path("detail").asText().contains("nothing holds its port"),
                line.toString());
    }

    /**
     * Issue 25: a host file could be checked only with a spawn, and log.file's folder was found
     * missing at the first line. {@code check --host FILE} alone finds both, and a DNS server that
     * does not answer, before the relay starts; against the world's DNS server and a loopback port
     * where nothing listens, never this machine's resolver.
     */
    @Test
    void aHostFileAloneIsCheckedItsLogFolderAndEachDnsServer() throws Exception {
        int stopped;
        try (DatagramSocket free = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            stopped = free.getLocalPort();
        }
        Path logs = world.dir().resolve("host-check-logs");
        Path good = write("host-check-good.json", """
                {"dns": {"servers": ["%s"], "timeoutMillis": 2000}, "log": {"file": "%s"}}
                """.formatted(
                        world.dns().hostConfigForm(), world.dir().resolve("host-check.jsonl")));
        Run ok = Portcullis.run(List.of("check", "--host", good.toString()), "");
        assertEquals(0, ok.exit(), ok.toString());
        assertEquals(List.of("file", "log.file", "dns.servers"), field(ok, "check"), ok.out());
        assertEquals(List.of("ok", "ok", "ok"), field(ok, "verdict"), ok.out());
        assertTrue(ok.out().contains("answered NXDOMAIN for invalid."), ok.out());

        Path bad = write("host-check-bad.json", """
                {"dns": {"servers": ["%s", "127.0.0.1:%d"], "timeoutMillis": 2000}, "log": {"file": "%s"}}
                """.formatted(
                        world.dns().hostConfigForm(), stopped, logs.resolve("decisions.jsonl")));
        Run failed = Portcullis.run(List.of("check", "--host", bad.toString()), "");
        assertEquals(1, failed.exit(), failed.toString());
        assertEquals(List.of("ok", "fail", "ok", "fail"), field(failed, "verdict"), failed.out());
        List<String> details = field(failed, "detail");
        assertTrue(details.get(1).contains("the folder " + logs + " does not exist"), details.get(1));
        assertEquals("127.0.0.1:" + stopped, field(failed, "server").get(3), failed.out());
        assertTrue(details.get(3).contains("nothing holds its port"), details.get(3));

        Path broken = write("host-check-broken.json", "{\"dns\": {\"timeoutMilis\": 5}}");
        Run refused = Portcullis.run(List.of("check", "--host", broken.toString()), "");
        assertEquals(2, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("timeoutMilis"), refused.err());
        assertEquals("", refused.out());
    }

    private static Run check(String spawnJson, List<String> targets, String stdin)
            throws IOException, InterruptedException {
        Path spawn = write("spawn.json", spawnJson);
        Path host = write("host.json", """
                {"dns": {"servers": ["%s"], "timeoutMillis": 2000},
                 "ownNames": ["portal.test"], "ownAddresses": ["2001:4860:77::11"]}
                """.formatted(world.dns().hostConfigForm()));
        List<String> args = new ArrayList<>(List.of("check", "--spawn", spawn.toString(), "--host", host.toString()));
        args.addAll(targets);
        return Portcullis.run(args, stdin);
    }

    private static Path write(String name, String text) throws IOException {
        return Files.writeString(world.dir().resolve(name), text);
    }

    private static JsonNode onlyLine(Run run) throws IOException {
        List<String> lines = run.out().lines().toList();
        assertEquals(1, lines.size(), run.toString());
        return JSON.readTree(lines.getFirst());
    }

    private static List<String> targets(Run run) throws IOException {
        return field(run, "target");
    }

    private static List<String> field(Run run, String name) throws IOException {
        List<String> values = new ArrayList<>();
        for (String line : run.out().lines().toList()) {
            values.add(JSON.readTree(line).path(name).asText(""));
        }
        return values;
    }

    private static List<InetAddress> addresses(JsonNode line) {
        List<InetAddress> addresses = new ArrayList<>();
        line.path("addresses").forEach(a -> addresses.add(InetAddress.ofLiteral(a.asText())));
        return addresses;
    }

    private static List<InetAddress> literals(String spaced) {
        return Arrays.stream(spaced.split(" ")).map(InetAddress::ofLiteral).toList();
    }
}
