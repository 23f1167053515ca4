package io.portcullis.relay.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.SpawnPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a new policy for an open spawn may change, and how each refusal names its field (SPEC R5, issue 25 #11). */
class SpawnChangeTest {
    /** The open spawn: a proxy, a forward, a named entry, a listed https entry, a door and a peer uid. */
    private static final String OPEN = """
            {"id": "studio", "network": "listed", "proxyPort": 39080, "peerUid": 1000,
             "hosts": [{"target": "127.0.0.1:5432", "scheme": "tcp"},
                       {"target": "db.lan:5432", "scheme": "tcp"},
                       {"target": "api.example.com:443", "scheme": "https"}],
             "door": {"port": 3001, "routes": [{"method": "GET", "path": "/state"}], "tokenFile": "/run/w/token"}}""";

    private static SpawnPolicy policy(String json) throws ConfigException {
        return SpawnPolicyJson.parse("spawn", json);
    }

    /** {@code OPEN} with {@code from} replaced by {@code to}. */
    private static SpawnPolicy changed(String from, String to) throws ConfigException {
        if (!OPEN.contains(from)) {
            throw new IllegalArgumentException("from: " + from + " (expected: a part of the open policy)");
        }
        return policy(OPEN.replace(from, to));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            nothing                     | "network": "listed"                  | "network": "listed"
            the network                 | "network": "listed"                  | "network": "internet"
            a listed https entry        | "api.example.com:443"                | "api.example.org:443"
            an entry's scheme off loopback | "api.example.com:443", "scheme": "https" | "api.example.com:443", "scheme": "http"
            the door's routes           | "path": "/state"                     | "path": "/status"
            a shadow                    | "network": "listed"                  | "network": "listed", "shadow": {"network": "internet"}
            """)
    void whatDecidesMayChange(String what, String from, String to) throws ConfigException {
        assertEquals(List.of(), SpawnChange.problems(policy(OPEN), changed(from, to)), what);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            the id        | "id": "studio"        | "id": "kiosk"        | id: "kiosk" (expected: "studio", the spawn's id)
            the proxy port | "proxyPort": 39080   | "proxyPort": 39090   | proxyPort: 39090 (expected: 39080, the proxy port its entry binds; a spawn's sockets are fixed when it opens)
            a forward     | "127.0.0.1:5432"      | "127.0.0.1:6379"     | hosts: loopback entries on ports [6379] (expected: ports [5432], the forwards its entry binds; a spawn's sockets are fixed when it opens)
            a named entry | "db.lan:5432"         | "cache.lan:6379"     | hosts: tcp entries reached by name [cache.lan:6379 on 127.77.0.1:6379] (expected: [db.lan:5432 on 127.77.0.1:5432], the named sockets its entry binds; a spawn's sockets are fixed when it opens)
            the door port | "port": 3001          | "port": 3002         | door.port: 3002 (expected: 3001, the door its entry binds; a spawn's sockets are fixed when it opens)
            the token file | "/run/w/token"       | "/run/w/other"       | door.tokenFile: "/run/w/other" (expected: "/run/w/token", where the door token was written when the spawn opened)
            the peer uid  | "peerUid": 1000       | "peerUid": 1001      | peerUid: 1001 (expected: 1000, the uid the spawn's socket and door token are for)
            """)
    void whatTheSocketsAreMayNot(String what, String from, String to, String problem) throws ConfigException {
        assertEquals(List.of(problem), SpawnChange.problems(policy(OPEN), changed(from, to)), what);
    }

    @Test
    void aDoorOrAPeerUidLeftOutIsAChangeToo() throws ConfigException {
        SpawnPolicy open = policy(OPEN);
        String noDoor = OPEN.substring(0, OPEN.lastIndexOf(',', OPEN.indexOf("\"door\""))) + "}";

        assertEquals(
                List.of("door.port: none (expected: 3001, the door its entry binds; a spawn's sockets are fixed when it"
                        + " opens)"),
                SpawnChange.problems(open, policy(noDoor)));
        assertEquals(
                List.of("peerUid: none (expected: 1000, the uid the spawn's socket and door token are for)"),
                SpawnChange.problems(open, changed(", \"peerUid\": 1000", "")));
    }

    /** Refused whole: every problem at once, in the order of the fields. */
    @Test
    void everyProblemIsNamedAtOnce() throws ConfigException {
        SpawnPolicy next = policy(OPEN.replace("\"id\": \"studio\"", "\"id\": \"kiosk\"")
                .replace("\"proxyPort\": 39080", "\"proxyPort\": 39090")
                .replace("\"peerUid\": 1000", "\"peerUid\": 1001"));

        List<String> problems = SpawnChange.problems(policy(OPEN), next);

        assertEquals(
                List.of("id", "proxyPort", "peerUid"),
                problems.stream().map(p -> p.substring(0, p.indexOf(':'))).toList(),
                problems.toString());
    }
}
