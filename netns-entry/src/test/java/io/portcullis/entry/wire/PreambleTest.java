package io.portcullis.entry.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PreambleTest {

    static List<PreambleVectors.Vector> valid() {
        return PreambleVectors.valid();
    }

    static List<PreambleVectors.Vector> invalid() {
        return PreambleVectors.invalid();
    }

    @Test
    void theSharedTableHoldsBothKindsOfRow() {
        assertFalse(valid().isEmpty(), "valid rows");
        assertFalse(invalid().isEmpty(), "invalid rows");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("valid")
    void decodesValidVector(PreambleVectors.Vector vector) {
        assertEquals(vector.expected(), Preamble.decode(vector.bytes()));
    }

    @ParameterizedTest(name = "{0} -> encodes to itself")
    @MethodSource("valid")
    void encodesValidVector(PreambleVectors.Vector vector) {
        assertArrayEquals(vector.bytes(), vector.expected().encode());
    }

    @ParameterizedTest(name = "{0} -> invalid")
    @MethodSource("invalid")
    void rejectsInvalidVector(PreambleVectors.Vector vector) {
        assertNull(Preamble.decode(vector.bytes()));
    }

    @ParameterizedTest(name = "{0} -> position 8, then the client's bytes")
    @MethodSource("valid")
    void decodingFromABufferLeavesTheClientBytes(PreambleVectors.Vector vector) {
        ByteBuffer buffer = ByteBuffer.allocate(Preamble.LENGTH + 3)
                .put(vector.bytes())
                .put(new byte[] {'G', 'E', 'T'})
                .flip();
        assertEquals(vector.expected(), Preamble.decode(buffer));
        assertEquals(Preamble.LENGTH, buffer.position());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0     | port: 0 (expected: 1-65535)
            65536 | port: 65536 (expected: 1-65535)
            -1    | port: -1 (expected: 1-65535)
            """)
    void refusesPortOutOfRange(int port, String message) {
        assertEquals(
                message,
                assertThrows(IllegalArgumentException.class, () -> new Preamble(Preamble.Kind.PROXY, port))
                        .getMessage());
    }

    @ParameterizedTest(name = "{0} bytes -> refused")
    @CsvSource({"0", "7", "9"})
    void refusesAnArrayThatIsNotEightBytes(int length) {
        assertThrows(IllegalArgumentException.class, () -> Preamble.decode(new byte[length]));
    }

    @Test
    void refusesABufferWithFewerThanEightBytes() {
        assertThrows(IllegalArgumentException.class, () -> Preamble.decode(ByteBuffer.allocate(7)));
    }
}
