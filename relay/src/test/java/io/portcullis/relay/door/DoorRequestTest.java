package io.portcullis.relay.door;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.handler.codec.http.HttpHeaders;
import io.portcullis.relay.http.HeadParser;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a door request becomes on its way to the gateway (SPEC R13). */
class DoorRequestTest {
    private static final int GATEWAY = 18789;

    @TempDir
    Path dir;

    private SpawnPolicy.Door door;
    private DoorToken token;
    private String secret;

    @BeforeEach
    void mint() throws Exception {
        door = new SpawnPolicy.Door(
                3001,
                List.of(new SpawnPolicy.Route("GET", "/kiosk/state"), new SpawnPolicy.Route("POST", "/kiosk/say")),
                dir.resolve("token"),
                "X-Door-Token");
        token = DoorToken.mint(dir.resolve("token"), OptionalInt.empty(), new SecureRandom());
        secret = Files.readString(dir.resolve("token"));
    }

    private DoorRequest.Outcome judge(String head) {
        RequestHead parsed = HeadParser.parse(head.replace("TOKEN", secret));
        return DoorRequest.judge(parsed, door, token, 1024, GATEWAY);
    }

    private static Map<String, List<String>> fields(DoorRequest.Outcome outcome) {
        HttpHeaders headers = assertInstanceOf(DoorRequest.Forward.class, outcome)
                .outgoing()
                .request()
                .headers();
        return headers.names().stream()
                .collect(Collectors.toMap(name -> name.toLowerCase(Locale.ROOT), headers::getAll));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "X-HTTP-Method-Override: DELETE",
                "x-http-method-override: DELETE",
                "X-HTTP-Method: DELETE",
                "X-Method-Override: PUT",
                "X-Original-URL: /admin/config",
                "X-Rewrite-URL: /admin/config",
                "Forwarded: for=127.0.0.1;host=gateway",
                "X-Forwarded-For: 127.0.0.1",
                "X-Forwarded-Host: localhost",
                "X-Forwarded-Proto: https",
                "X-Forwarded-Prefix: /admin",
                "X-Forwarded-Port: 443",
                "X-Real-IP: 127.0.0.1",
                "X_Forwarded_For: 127.0.0.1",
            })
    void aFieldThatCouldSteerTheGatewayIsNeverForwarded(String field) {
        Map<String, List<String>> sent = fields(judge(
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token: TOKEN\r\n" + field + "\r\nAccept: */*\r\n\r\n"));

        assertEquals(
                Map.of(
                        "host", List.of("127.0.0.1:" + GATEWAY),
                        "accept", List.of("*/*"),
                        "connection", List.of("close")),
                sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /kiosk/state HTTP/1.1\r\nHost: evil.example\r\nX-Door-Token: TOKEN\r\n\r\n",
                "GET /kiosk/state HTTP/1.1\r\nHost: 127.0.0.1:3001\r\nX-Door-Token: TOKEN\r\n\r\n",
                "GET /kiosk/state HTTP/1.0\r\nX-Door-Token: TOKEN\r\n\r\n",
            })
    void theHostIsTheGatewaysOwn(String head) {
        assertEquals(List.of("127.0.0.1:" + GATEWAY), fields(judge(head)).get("host"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET /kiosk/state HTTP/1.1\\r\\nHost: d\\r\\nX-Door-Token: TOKEN\\r\\nContent-Length: 1\\r\\n\\r\\n | BAD_REQUEST",
                "GET /kiosk/state HTTP/1.1\\r\\nHost: d\\r\\nX-Door-Token: TOKEN\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | BAD_REQUEST",
                "GET /kiosk/state HTTP/1.1\\r\\nHost: d\\r\\nHost: d\\r\\nX-Door-Token: TOKEN\\r\\n\\r\\n | BAD_REQUEST",
                "POST /kiosk/say HTTP/1.1\\r\\nHost: d\\r\\nX-Door-Token: TOKEN\\r\\nContent-Length: 1025\\r\\n\\r\\n | BODY_TOO_LARGE",
            })
    void aGetWithABodyOrTwoHostsIsRefused(String head, DenyCode code) {
        assertEquals(new DoorRequest.Refused(code), judge(head.replace("\\r\\n", "\r\n")));
    }
}
