package io.portcullis.it.datapath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.it.world.TestWorld;
import io.portcullis.relay.observe.Decision;
import io.portcullis.world.DnsAnswer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Plain HTTP (SPEC R10) end to end: raw request bytes from a spawn's namespace through the real
 * entry and a relay with the policy's judge to the LAN site's HTTP origin, which records every byte
 * it received. Each row's answer is checked, and the origin's records show that only the allowed
 * requests arrived, in origin-form, without proxy fields, and never a pipelined second request;
 * curl, through the proxy the entry announces, gets its answer too.
 */
@NetnsTest
class PlainHttpEndToEndTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final String POLICY = """
            {"id": "plain", "hosts": [
              {"target": "nas.lan:80", "scheme": "http"},
              {"target": "nas.lan:8443", "scheme": "https"}]}
            """;

    /** name | raw request (printf format) | status | decision code ("-": allowed). */
    private static final List<String> ROWS = List.of(
            "get        | GET http://NAS.lan/x?y=1 HTTP/1.1\\r\\nHost: nas.lan:80\\r\\nProxy-Authorization: Basic eDp5\\r\\nProxy-Connection: keep-alive\\r\\n\\r\\nGET http://nas.lan/second HTTP/1.1\\r\\nHost: nas.lan\\r\\n\\r\\n | 200 | -",
            "post       | POST http://nas.lan/p HTTP/1.1\\r\\nHost: nas.lan\\r\\nContent-Length: 4\\r\\n\\r\\nbodyGET /smuggled HTTP/1.1\\r\\n\\r\\n | 200 | -",
            "chunked    | POST http://nas.lan/c HTTP/1.1\\r\\nHost: nas.lan\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n4\\r\\nbody\\r\\n0\\r\\n\\r\\n | 200 | -",
            "cl-te      | POST http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\nContent-Length: 6\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\nX | 400 | bad-request",
            "cl-cl      | POST http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\nContent-Length: 0\\r\\nContent-Length: 5\\r\\n\\r\\nabcde | 400 | bad-request",
            "te-gzip    | POST http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n0\\r\\n\\r\\n | 400 | bad-request",
            "obs-fold   | GET http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\nX: a\\r\\n b\\r\\n\\r\\n | 400 | bad-request",
            "bare-lf    | GET http://nas.lan/ HTTP/1.1\\nHost: nas.lan\\n\\n | 400 | bad-request",
            "nul        | GET http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\000\\r\\n\\r\\n | 400 | bad-request",
            "method     | G:T http://nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\n\\r\\n | 400 | bad-request",
            "version    | GET http://nas.lan/ HTTP/1.2\\r\\nHost: nas.lan\\r\\n\\r\\n | 400 | bad-request",
            "userinfo   | GET http://a:b@nas.lan/ HTTP/1.1\\r\\nHost: nas.lan\\r\\n\\r\\n | 400 | bad-request",
            "host       | GET http://nas.lan/ HTTP/1.1\\r\\nHost: lan.test\\r\\n\\r\\n | 400 | bad-request",
            "unlisted   | GET http://lan.test/ HTTP/1.1\\r\\nHost: lan.test\\r\\n\\r\\n | 403 | not-listed",
            "https-only | GET http://nas.lan:8443/ HTTP/1.1\\r\\nHost: nas.lan:8443\\r\\n\\r\\n | 403 | not-listed");

    private static final Pattern RECORD = Pattern.compile("X-Origin-Record: (\\S+)");

    @Test
    void eachRowGetsItsAnswerAndOnlyAllowedRequestsReachTheOriginAsTheRelayWroteThem() throws Exception {
        world.zone().set("nas.lan", DnsAnswer.of("192.168.77.10")).set("lan.test", DnsAnswer.of("192.168.77.11"));
        StringBuilder script = new StringBuilder();
        for (String row : ROWS) {
            String[] cells = cells(row);
            script.append("echo '=== ")
                    .append(cells[0])
                    .append("'; printf '")
                    .append(cells[1])
                    .append("' | socat -t 5 -T 10 - TCP:127.0.0.1:${HTTP_PROXY##*:} | tr -d '\\r'\n");
        }
        script.append("echo '=== curl'; curl -sS -i --max-time 10 http://nas.lan/curl?q=1 | tr -d '\\r'\n");
        long before = records();
        Map<String, String> answers = new HashMap<>();
        List<Decision> decisions;
        try (Spawn spawn = Spawn.open(world.dir(), world.dns().hostConfigForm(), "", POLICY)) {
            Run run = spawn.run(script.toString(), 120);
            assertEquals(0, run.exit(), run.toString());
            String name = null;
            for (String line : run.out().lines().toList()) {
                if (line.startsWith("=== ")) {
                    name = line.substring(4);
                    answers.put(name, "");
                } else if (name != null) {
                    answers.merge(name, line + "\n", String::concat);
                }
            }
            decisions = spawn.all(500);
        }
        for (String row : ROWS) {
            String[] cells = cells(row);
            String answer = answers.get(cells[0]);
            assertTrue(answer != null && answer.startsWith("HTTP/1.1 " + cells[2] + " "), cells[0] + ": " + answer);
            assertTrue(answer.contains("\nConnection: close\n"), cells[0] + ": " + answer);
            if (!cells[3].equals("-")) {
                assertTrue(answer.contains("\nPortcullis-Deny: " + cells[3] + "\n"), cells[0] + ": " + answer);
            }
        }
        assertTrue(answers.get("curl").startsWith("HTTP/1.1 200 OK\n"), answers.get("curl"));
        assertTrue(answers.get("curl").contains("\"target\":\"/curl?q=1\""), answers.get("curl"));
        assertEquals(ROWS.size() + 1, decisions.size(), decisions.toString());
        assertEquals("GET /x?y=1 HTTP/1.1\r\nHost: nas.lan\r\nConnection: close\r\n\r\n", recorded(answers.get("get")));
        assertEquals(
                "POST /p HTTP/1.1\r\nHost: nas.lan\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody",
                recorded(answers.get("post")));
        assertEquals(
                "POST /c HTTP/1.1\r\nHost: nas.lan\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        + "4\r\nbody\r\n0\r\n\r\n",
                recorded(answers.get("chunked")));
        assertEquals(4, records() - before, "only the four allowed requests reached the origin");
    }

    private static String[] cells(String row) {
        return Stream.of(row.split("\\|")).map(String::strip).toArray(String[]::new);
    }

    private static String recorded(String answer) throws Exception {
        Matcher matcher = RECORD.matcher(answer);
        assertTrue(matcher.find(), answer);
        return new String(world.recorded(matcher.group(1), Duration.ofSeconds(10)), StandardCharsets.ISO_8859_1);
    }

    /** How many connections the LAN origins on port 80 have recorded so far. */
    private static long records() throws Exception {
        try (Stream<Path> files = Files.list(world.dir())) {
            return files.filter(p -> p.getFileName().toString().matches(".*-80-\\d+\\.(bin|partial)"))
                    .count();
        }
    }
}
