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
import java.util.Set;
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

    private DoorRequest.Checked judge(String head) {
        RequestHead parsed = HeadParser.parse(head.replace("TOKEN", secret));
        return DoorRequest.judge(parsed, door, token, 1024, GATEWAY);
    }

    private static Map<String, List<String>> fields(DoorRequest.Checked outcome) {
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
                "X-Middleware-Subrequest: middleware:middleware:middleware",
                "X-Original-Method: DELETE",
                "X-Original-Host: admin.example",
                "X-Host: admin.example",
                "X-Envoy-Original-Path: /admin/config",
                "X-Qv81-Unheard-Of: 1",
                "Cookie: session=1",
                "Authorization: Basic eDp5",
                "User-Agent: t",
                "Origin: http://evil.example",
                "Content-Encoding: gzip",
                "Range: bytes=0-",
                "If-None-Match: *",
            })
    void aFieldOutsideTheAllowListIsNeverForwarded(String field) {
        Map<String, List<String>> sent = fields(judge(
                "GET /kiosk/state HTTP/1.1\r\nHost: d\r\nX-Door-Token: TOKEN\r\n" + field + "\r\nAccept: */*\r\n\r\n"));

        assertEquals(
                Map.of(
                        "host", List.of("127.0.0.1:" + GATEWAY),
                        "x-door-token", List.of(secret),
                        "accept", List.of("*/*"),
                        "connection", List.of("close")),
                sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "Content-Type: application/json",
                "Accept: application/json",
                "Accept-Encoding: gzip",
                "Accept-Language: de, en;q=0.5",
                "content-type: text/plain",
            })
    void aFieldOfTheAllowListIsForwardedAsWritten(String field) {
        Map<String, List<String>> sent = fields(judge("POST /kiosk/say HTTP/1.1\r\nHost: d\r\nX-Door-Token: TOKEN\r\n"
                + field + "\r\nContent-Length: 2\r\n\r\n"));

        String name = field.substring(0, field.indexOf(':')).toLowerCase(Locale.ROOT);
        assertEquals(List.of(field.substring(field.indexOf(':') + 2)), sent.get(name));
        assertEquals(List.of("2"), sent.get("content-length"));
        assertEquals(List.of(secret), sent.get("x-door-token"));
        assertEquals(Set.of("host", "x-door-token", name, "content-length", "connection"), sent.keySet());
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
