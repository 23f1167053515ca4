package io.portcullis.relay.door;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.handler.codec.http.HttpRequest;
import io.portcullis.relay.http.HeadParser;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The door's target rule (SPEC R13) accepts exactly what {@link DoorTarget} documents, read here a
 * second way: at most {@value DoorTarget#MAX_LENGTH} bytes, one leading {@code /}, segments of RFC
 * 3986 path characters that are neither {@code .} nor {@code ..}, and no empty one but the last. A
 * clean target is a URI path that nothing decodes or normalises into another. A door request for
 * any target is refused as {@code door-target} exactly when the target is not clean, and is
 * otherwise forwarded with that very target, the gateway's own {@code Host} and no token.
 */
class DoorTargetFuzzTest {
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._~!$&'()*+,;=:@-]+");
    private static final int GATEWAY = 18789;

    @TempDir
    static Path dir;

    private static DoorToken token;
    private static String secret;

    @BeforeAll
    static void mint() throws Exception {
        token = DoorToken.mint(dir.resolve("token"), OptionalInt.empty(), new SecureRandom());
        secret = Files.readString(dir.resolve("token"));
    }

    @FuzzTest(maxDuration = "15s")
    void isClean(byte[] bytes) throws URISyntaxException {
        if (bytes == null) {
            return;
        }
        String target = new String(bytes, StandardCharsets.ISO_8859_1);
        boolean clean = DoorTarget.isClean(target);
        assertEquals(byTheRule(target), clean, target);
        if (clean) {
            URI uri = new URI(target);
            assertEquals(target, uri.getRawPath(), "the whole target is the path");
            assertNull(uri.getRawQuery(), target);
            assertNull(uri.getRawFragment(), target);
            assertEquals(target, uri.getPath(), "nothing in a clean target decodes");
            assertEquals(target, uri.normalize().getRawPath(), "nothing in a clean target normalises");
        }
        judge(target, clean);
    }

    private static void judge(String target, boolean clean) {
        RequestHead head;
        try {
            head = HeadParser.parse("GET " + target + " HTTP/1.1\r\nHost: d\r\nX-Door-Token: " + secret + "\r\n\r\n");
        } catch (IllegalArgumentException e) {
            assertFalse(clean, "the head parser refused a clean target: " + target);
            return;
        }
        if (!head.target().equals(target)) {
            assertFalse(clean, "a clean target held a space or a line end: " + target);
            return;
        }
        SpawnPolicy.Door door = new SpawnPolicy.Door(
                3001, List.of(new SpawnPolicy.Route("GET", target)), dir.resolve("token"), "X-Door-Token");
        DoorRequest.Checked outcome = DoorRequest.judge(head, door, token, 1024, GATEWAY);
        if (!clean) {
            assertEquals(new DoorRequest.Refused(DenyCode.DOOR_TARGET), outcome, target);
            return;
        }
        HttpRequest sent =
                assertInstanceOf(DoorRequest.Forward.class, outcome).outgoing().request();
        assertEquals(target, sent.uri());
        assertEquals(List.of("127.0.0.1:" + GATEWAY), sent.headers().getAll("Host"));
        assertEquals(List.of(secret), sent.headers().getAll("X-Door-Token"), target);
    }

    /** The rule, read from {@link DoorTarget}'s documentation rather than from its code. */
    private static boolean byTheRule(String target) {
        if (target.length() > DoorTarget.MAX_LENGTH || !target.startsWith("/")) {
            return false;
        }
        String[] segments = target.substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean good = segment.isEmpty()
                    ? i == segments.length - 1
                    : SEGMENT.matcher(segment).matches() && !segment.equals(".") && !segment.equals("..");
            if (!good) {
                return false;
            }
        }
        return true;
    }
}
