package io.portcullis.relay.decisionlog;

import static io.portcullis.relay.testing.Decisions.decision;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.testing.Decisions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The hand-written decision line is, byte for byte, what Jackson writes for the same decision. */
class DecisionLineTest {

    private static void sameAsJackson(Decision line) {
        String jackson = LogJson.jackson(line);
        assertEquals(jackson, DecisionLine.text(line));
        assertArrayEquals((jackson + '\n').getBytes(StandardCharsets.UTF_8), LogJson.line(line));
        Ended ended = Ended.of(line);
        String end = LogJson.jackson(ended);
        assertEquals(end, DecisionLine.text(ended));
        assertArrayEquals((end + '\n').getBytes(StandardCharsets.UTF_8), LogJson.line(ended));
    }

    private static InetAddress address(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    private static final OwnerEvidence.Listener LISTENER =
            new OwnerEvidence.Listener("inet", "127.0.0.1", 8080, 1000, 4242, false, "");
    private static final OwnerEvidence.Process PROCESS = new OwnerEvidence.Process(
            77, 1000, List.of("/usr/bin/python3", "-m", "http.server", "8080"), "/srv", "/usr/bin/python3", 4242);

    static Stream<Decisions> shapes() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("com.docker.compose.project", "walls");
        labels.put("quote\"and\\back", "line\nend\u2028");
        return Stream.of(
                decision(),
                decision()
                        .target("example.com:443")
                        .resolved("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c")
                        .dialed("93.184.215.14", 443)
                        .bytes(1234, 56789)
                        .durationMillis(0)
                        .generation(7),
                decision().target("[2001:db8::1]:443").resolved("2001:db8::1").dialed("2001:db8::1", 443),
                decision()
                        .target("10.0.0.1:22")
                        .verdict("deny", "not-global-unicast")
                        .resolved("10.0.0.1"),
                decision()
                        .target("example.com:443")
                        .verdict("error", "upstream-refused")
                        .end(Decision.End.CLIENT_RESET),
                decision()
                        .verdict("deny", "client-closed")
                        .end(Decision.End.UPSTREAM_RESET)
                        .kind("forward"),
                decision()
                        .target("127.0.0.1:8080")
                        .resolved("127.0.0.1")
                        .dialed("127.0.0.1", 8080)
                        .owner(new OwnerEvidence(List.of(LISTENER), List.of(PROCESS), null)),
                decision().owner(OwnerEvidence.NONE).verdict("deny", "owner-none"),
                decision()
                        .owner(new OwnerEvidence(
                                List.of(LISTENER, new OwnerEvidence.Listener("inet6", "::", 8080, 0, 9, null, "eth0")),
                                List.of(PROCESS, new OwnerEvidence.Process(1, 0, List.of(), null, null, 9)),
                                new OwnerEvidence.Container("c0ffee", "walls-web-1", labels)))
                        .verdict("deny", "owner-root"),
                decision()
                        .owner(new OwnerEvidence(
                                List.of(new OwnerEvidence.Listener("", "", 0, -1, 0, true, "")),
                                List.of(),
                                new OwnerEvidence.Container("id", "name", Map.of()))),
                decision()
                        .shadow(new Decision.Shadow(
                                Decision.Shadow.DENY,
                                Optional.of(DenyCode.of("not-global-unicast").orElseThrow())))
                        .target("10.0.0.1:443"),
                decision()
                        .verdict("deny", "not-global-unicast")
                        .shadow(new Decision.Shadow(Decision.Shadow.UNKNOWN, Optional.empty())),
                decision()
                        .verdict("deny", "not-global-unicast")
                        .shadow(new Decision.Shadow(Decision.Shadow.ALLOW, Optional.empty())),
                decision()
                        .upstream(new Decision.Upstream(
                                new InetSocketAddress(address("192.0.2.8"), 3128),
                                "CONNECT example.com:443",
                                Optional.of(200))),
                decision()
                        .upstream(new Decision.Upstream(
                                new InetSocketAddress(address("2001:db8::8"), 3128),
                                "http://example.com/a?b",
                                Optional.empty())),
                decision()
                        .connection(Long.MAX_VALUE)
                        .bytes(Long.MAX_VALUE, 0)
                        .generation(0)
                        .method("CONNECT")
                        .time(Instant.parse("2026-12-02T07:44:46.635724853Z")),
                decision().time(Instant.EPOCH).spawn("").kind("dns").target(""),
                decision()
                        .open(true)
                        .target("api.example.com:443")
                        .reason("listed entry api.example.com:443 (https)")
                        .timings(812, 0, 1204)
                        .revision(3),
                decision().timings(-1, 77, -1).reason("").revision(0),
                decision().timings(Long.MAX_VALUE, -1, 0).reason("a \"quoted\" reason\nwith a line end"));
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void everyShapeOfLineIsWhatJacksonWrites(Decisions shape) {
        sameAsJackson(shape.build());
    }

    /** Every UTF-16 unit, in each string of the line: escaped, or not, exactly as Jackson does it. */
    @Test
    void everyCharacterIsEscapedAsJacksonEscapesIt() {
        for (int c = 0; c <= 0xffff; c += 64) {
            StringBuilder chars = new StringBuilder();
            for (int i = c; i < c + 64; i++) {
                chars.append((char) i).append('x');
            }
            String text = chars.toString();
            sameAsJackson(
                    decision().spawn(text).kind(text).target(text).reason(text).build());
            sameAsJackson(decision()
                    .owner(new OwnerEvidence(
                            List.of(new OwnerEvidence.Listener(text, text, 1, 1, 1, null, text)),
                            List.of(new OwnerEvidence.Process(1, 1, List.of(text, text), text, text, 1)),
                            new OwnerEvidence.Container(text, text, Map.of(text, text))))
                    .build());
        }
    }

    @Test
    void aSplitSurrogateIsWrittenAsJacksonsTextWouldBe() {
        sameAsJackson(decision()
                .target("\ud800:443")
                .spawn("a\udc00b")
                .kind("\udbff\udfff")
                .build());
    }
}
