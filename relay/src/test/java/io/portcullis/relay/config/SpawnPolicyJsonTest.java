package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpawnPolicyJsonTest {

    @Test
    void readsTheSpecExample() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spec", """
                {
                  "id": "studio",
                  "network": "listed",
                  "hosts": [
                    {"target": "nas.lan:8443",   "scheme": "https"},
                    {"target": "printer.lan:80", "scheme": "http"},
                    {"target": "127.0.0.1:5000", "scheme": "tcp"},
                    {"target": "127.0.0.1:8080", "scheme": "tcp", "source": "default"}
                  ],
                  "proxyPort": 39080,
                  "door": {"port": 3001, "routes": [{"method": "GET", "path": "/kiosk/state"}],
                           "tokenFile": "/run/wall/studio/door-token", "tokenHeader": "X-Door-Token"},
                  "peerUid": 1000
                }""");
        assertEquals("studio", spawn.id());
        assertEquals(SpawnPolicy.Network.LISTED, spawn.network());
        assertEquals(4, spawn.hosts().size());
        assertEquals(
                new SpawnPolicy.Entry(
                        Target.parse("127.0.0.1:8080"), SpawnPolicy.Scheme.TCP, OwnerQuery.Source.DEFAULT),
                spawn.hosts().get(3));
        assertEquals(
                List.of(5000, 8080),
                spawn.forwards().stream().map(e -> e.target().port()).toList());
        assertEquals(3001, spawn.door().orElseThrow().port());
        assertEquals(
                Path.of("/run/wall/studio/door-token"),
                spawn.door().orElseThrow().tokenFile());
        assertEquals(
                new SpawnPolicy.Route("GET", "/kiosk/state"),
                spawn.door().orElseThrow().routes().get(0));
        assertEquals(OptionalInt.of(1000), spawn.peerUid());
    }

    @Test
    void defaults() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("min", "{\"id\": \"a\"}");
        assertEquals(SpawnPolicy.Network.LISTED, spawn.network());
        assertEquals(List.of(), spawn.hosts());
        assertEquals(39080, spawn.effectiveProxyPort());
        assertTrue(spawn.door().isEmpty());
        assertTrue(spawn.peerUid().isEmpty());
    }

    @ParameterizedTest(name = "proxyPort {0} with forwards {1} -> {2}")
    @CsvSource({"39080, 5000, 39080", "39080, 39080, 39081", "39080, 39080 39081 39082, 39083", "5000, 5000 5001, 5002"
    })
    void proxyPortMovesPastForwards(int proxyPort, String forwards, int effective) throws ConfigException {
        StringBuilder hosts = new StringBuilder();
        for (String port : forwards.split(" ")) {
            hosts.append(hosts.isEmpty() ? "" : ",")
                    .append("{\"target\": \"127.0.0.1:")
                    .append(port)
                    .append("\", \"scheme\": \"tcp\"}");
        }
        SpawnPolicy spawn = SpawnPolicyJson.parse(
                "p", "{\"id\": \"a\", \"proxyPort\": " + proxyPort + ", \"hosts\": [" + hosts + "]}");
        assertEquals(effective, spawn.effectiveProxyPort());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {}                                                  | id: missing (expected: a string)
            []                                                  | (top level): [] (expected: an object)
            {"id": 7}                                           | id: 7 (expected: a string)
            {"id": "a b"}                                       | id: "a b" (expected: 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit)
            {"id": "a", "nope": 1}                              | nope: unknown field (expected: one of id, network, hosts, proxyPort, door, peerUid, shadow)
            {"id": "a", "network": "all"}                       | network: "all" (expected: one of none, listed, internet)
            {"id": "a", "shadow": {"id": "b"}}                  | shadow.id: unknown field (expected: one of network, hosts)
            {"id": "a", "shadow": {"door": {}}}                 | shadow.door: unknown field (expected: one of network, hosts)
            {"id": "a", "shadow": {"network": "all"}}           | shadow.network: "all" (expected: one of none, listed, internet)
            {"id": "a", "shadow": {"hosts": [{"target": "b", "scheme": "tcp"}]}} | shadow.hosts[0].target: "b" (expected: host:port)
            {"id": "a", "shadow": []}                           | shadow: [] (expected: an object)
            {"id": "a", "network": null}                        | network: null (expected: one of none, listed, internet)
            {"id": "a", "hosts": {}}                            | hosts: {} (expected: an array)
            {"id": "a", "hosts": ["x:1"]}                       | hosts[0]: "x:1" (expected: an object)
            {"id": "a", "hosts": [{"target": "a@b:443", "scheme": "https"}]} | hosts[0].target: "a@b:443" (expected: host:port without userinfo, zone, path or escape)
            {"id": "a", "hosts": [{"target": "*.b:443", "scheme": "https"}]} | hosts[0].target: "*.b:443" (expected: host:port naming one exact host, no wildcard)
            {"id": "a", "hosts": [{"target": "b:1-100", "scheme": "tcp"}]}   | hosts[0].target: "b:1-100" (expected: host:port with one port, no range)
            {"id": "a", "hosts": [{"target": "b", "scheme": "tcp"}]}         | hosts[0].target: "b" (expected: host:port)
            {"id": "a", "hosts": [{"target": 443, "scheme": "tcp"}]}         | hosts[0].target: 443 (expected: a string)
            {"id": "a", "hosts": [{"target": "b:1"}]}                        | hosts[0].scheme: missing (expected: one of https, tcp, http)
            {"id": "a", "hosts": [{"target": "b:1", "scheme": "ftp"}]}       | hosts[0].scheme: "ftp" (expected: one of https, tcp, http)
            {"id": "a", "hosts": [{"target": "b:1", "scheme": "tcp", "source": "x"}]} | hosts[0].source: "x" (expected: one of owner, default)
            {"id": "a", "hosts": [{"target": "b:1", "scheme": "tcp", "x": 1}]} | hosts[0].x: unknown field (expected: one of target, scheme, source)
            {"id": "a", "hosts": [{"target": "B.:1", "scheme": "tcp"}, {"target": "b:1", "scheme": "http"}]} | hosts[1].target: "b:1" (expected: each target once; hosts[0] is the same)
            {"id": "a", "hosts": [{"target": "127.0.0.1:1", "scheme": "tcp"}, {"target": "localhost:1", "scheme": "tcp"}]} | hosts[1].target: "localhost:1" (expected: one loopback entry per port; hosts[0] forwards port 1)
            {"id": "a", "proxyPort": 0}                         | proxyPort: 0 (expected: an integer 1-65535)
            {"id": "a", "proxyPort": "80"}                      | proxyPort: "80" (expected: an integer 1-65535)
            {"id": "a", "proxyPort": 80.5}                      | proxyPort: 80.5 (expected: an integer 1-65535)
            {"id": "a", "proxyPort": 1e3}                       | proxyPort: 1e3 (expected: an integer 1-65535)
            {"id": "a", "proxyPort": -2.50E+1}                  | proxyPort: -2.50E+1 (expected: an integer 1-65535)
            {"id": "a", "hosts": [1.0e0]}                       | hosts[0]: 1.0e0 (expected: an object)
            {"id": "a", "peerUid": -1}                          | peerUid: -1 (expected: an integer 0-4294967294)
            {"id": "a", "door": null}                           | door: null (expected: an object)
            {"id": "a", "door": {"routes": [], "tokenFile": "/t"}} | door.port: missing (expected: an integer 1-65535)
            {"id": "a", "door": {"port": 1, "tokenFile": "/t"}} | door.routes: missing (expected: an array of {"method", "path"})
            {"id": "a", "door": {"port": 1, "routes": []}}      | door.tokenFile: missing (expected: a string)
            {"id": "a", "door": {"port": 1, "routes": [], "tokenFile": "t"}} | door.tokenFile: "t" (expected: an absolute path)
            {"id": "a", "door": {"port": 1, "routes": [], "tokenFile": "/t", "tokenHeader": "X Y"}} | door.tokenHeader: "X Y" (expected: an HTTP header name)
            {"id": "a", "door": {"port": 1, "routes": [{"method": "get", "path": "/a"}], "tokenFile": "/t"}} | door.routes[0].method: "get" (expected: an upper-case HTTP method, e.g. GET)
            {"id": "a", "door": {"port": 1, "routes": [{"method": "GET", "path": "/a/../b"}], "tokenFile": "/t"}} | door.routes[0].path: "/a/../b" (expected: an exact path without '.' or '..' segments)
            {"id": "a", "door": {"port": 1, "routes": [{"method": "GET", "path": "/a?b"}], "tokenFile": "/t"}} | door.routes[0].path: "/a?b" (expected: an exact path: one leading slash, no '*', '%', '?', '#', '.' or '..' segment)
            {"id": "a", "door": {"port": 1, "routes": [{"method": "GET", "path": "/a"}, {"method": "GET", "path": "/a"}], "tokenFile": "/t"}} | door.routes[1]: {"method":"GET","path":"/a"} (expected: each route once)
            {"id": "a", "hosts": [{"target": "127.0.0.1:3001", "scheme": "tcp"}], "door": {"port": 3001, "routes": [], "tokenFile": "/t"}} | door.port: 3001 (expected: a port no forward uses; 127.0.0.1:3001 does)
            {"id": "a", "id": "b"}                              | (json): Duplicate field 'id' at line 1, column 17 (expected: one well-formed JSON object)
            {"id": "a"} {}                                      | (json): more after the first value at line 1, column 13 (expected: one well-formed JSON object)
            \uFEFF{"id": "a"}                                   | (json): starts with a UTF-8 byte order mark (expected: plain UTF-8 JSON)
            {"id": "a",}                                        | (json): Unexpected character ('}' (code 125)): was expecting double-quote to start field name at line 1, column 12 (expected: one well-formed JSON object)
            """)
    void oneProblem(String json, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> SpawnPolicyJson.parse("t", json));
        assertEquals(List.of(problem), e.problems());
    }

    @Test
    void aFileStartingWithAByteOrderMarkIsRefusedInOneLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("spawn.json");
        Files.write(file, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'});
        ConfigException e = assertThrows(ConfigException.class, () -> SpawnPolicyJson.read(file));
        assertEquals(List.of("(json): starts with a UTF-8 byte order mark (expected: plain UTF-8 JSON)"), e.problems());
    }

    @Test
    void everyProblemAtOnce() {
        ConfigException e = assertThrows(ConfigException.class, () -> SpawnPolicyJson.parse("t", """
                {"network": "all", "hosts": [{"target": "ok:1", "scheme": "tcp"}, {"target": "a@b:443", "scheme": "https"},
                 {"target": "b:2", "scheme": "ftp"}], "proxyPort": 70000, "extra": true}"""));
        assertEquals(
                List.of(
                        "extra: unknown field (expected: one of id, network, hosts, proxyPort, door, peerUid, shadow)",
                        "id: missing (expected: a string)",
                        "network: \"all\" (expected: one of none, listed, internet)",
                        "hosts[1].target: \"a@b:443\" (expected: host:port without userinfo, zone, path or escape)",
                        "hosts[2].scheme: \"ftp\" (expected: one of https, tcp, http)",
                        "proxyPort: 70000 (expected: an integer 1-65535)"),
                e.problems());
        assertTrue(e.getMessage().startsWith("t: 6 problems"), e.getMessage());
    }
}
