package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;

/**
 * Any bytes are one hand-over header or a {@link Handoff.Malformed}, nothing else; what decodes has
 * 1-{@value Handoff#MAX_SOCKETS} sockets with a port, agrees with {@link Handoff#length}, and
 * encodes back to exactly the bytes it came from, so no two spellings name the same sockets.
 */
class HandoffFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void decode(byte[] bytes) {
        if (bytes == null) {
            return;
        }
        Optional<Integer> length = Handoff.length(bytes);
        length.ifPresent(n -> assertTrue(
                n >= Handoff.HEADER + Handoff.ENTRY
                        && n <= Handoff.HEADER + Handoff.ENTRY * Handoff.MAX_SOCKETS
                        && (n - Handoff.HEADER) % Handoff.ENTRY == 0,
                "length " + n));
        Handoff handoff;
        try {
            handoff = Handoff.decode(bytes);
        } catch (Handoff.Malformed e) {
            assertTrue(
                    e.getMessage().startsWith("the message ") || e.getMessage().startsWith("socket "), e.getMessage());
            return;
        }
        assertEquals(Optional.of(bytes.length), length, "a decoded header is exactly as long as its start says");
        int count = handoff.sockets().size();
        assertTrue(count >= 1 && count <= Handoff.MAX_SOCKETS, "count " + count);
        assertEquals(count, bytes[Handoff.KEYED] & 0xff);
        for (Handoff.Socket socket : handoff.sockets()) {
            assertTrue(socket.port() >= 1 && socket.port() <= 65535, socket.toString());
        }
        assertArrayEquals(bytes, handoff.encode(), "a decoded header encodes to its own bytes");
    }
}
