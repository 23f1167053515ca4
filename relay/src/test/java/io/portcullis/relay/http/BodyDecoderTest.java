package io.portcullis.relay.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BodyDecoderTest {
    private static final long LIMIT = 16;

    /** What the decoder passed on: the body's bytes, then {@code |end}, or {@code |<code>} for a failure. */
    private static String decode(Framing framing, String... pieces) {
        EmbeddedChannel channel = new EmbeddedChannel(new BodyDecoder(framing, LIMIT));
        for (String piece : pieces) {
            channel.writeInbound(Unpooled.copiedBuffer(
                    piece.replace("\\r", "\r").replace("\\n", "\n"), StandardCharsets.ISO_8859_1));
        }
        StringBuilder out = new StringBuilder();
        for (Object msg; (msg = channel.readInbound()) != null; ) {
            switch (msg) {
                case LastHttpContent last -> out.append("|end");
                case HttpContent content -> {
                    out.append(content.content().toString(StandardCharsets.ISO_8859_1));
                    content.release();
                }
                case BodyDecoder.Failure failure ->
                    out.append('|').append(failure.code().code());
                default -> throw new AssertionError(msg);
            }
        }
        channel.finishAndReleaseAll();
        return out.toString();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiterString = " => ",
            value = {
                "3\\r\\nabc\\r\\n0\\r\\n\\r\\n => abc|end",
                "3\\r\\nabc\\r\\nA\\r\\n0123456789\\r\\n0\\r\\n\\r\\nGET / HTTP/1.1 => abc0123456789|end",
                "00000003\\r\\nabc\\r\\n0\\r\\n\\r\\n => abc|end",
                "0\\r\\n\\r\\n => |end",
                "3;x=y\\r\\nabc\\r\\n0\\r\\n\\r\\n => |bad-request",
                "3 \\r\\nabc\\r\\n0\\r\\n\\r\\n => |bad-request",
                "+3\\r\\nabc\\r\\n0\\r\\n\\r\\n => |bad-request",
                "3\\nabc\\r\\n0\\r\\n\\r\\n => |bad-request",
                "\\r\\n => |bad-request",
                "3\\r\\nabcd\\r\\n0\\r\\n\\r\\n => abc|bad-request",
                "3\\r\\nabc\\r\\n0\\r\\nX-Trailer: 1\\r\\n\\r\\n => abc|bad-request",
                "000000003\\r\\nabc\\r\\n0\\r\\n\\r\\n => |bad-request",
                "11\\r\\n => |body-too-large",
                "8\\r\\n01234567\\r\\n9\\r\\n => 01234567|body-too-large",
            })
    void chunksAreReadStrictly(String body, String passed) {
        assertEquals(passed.strip(), decode(new Framing.Chunked(), body.strip()));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiterString = " => ",
            value = {
                "3 => ab,c,de => abc|end",
                "0 => abc => ''",
                "5 => ab => ab",
            })
    void aLengthIsCopiedExactlyAndWhatFollowsDropped(long length, String pieces, String passed) {
        assertEquals(
                passed.strip(),
                decode(new Framing.Length(length), pieces.strip().split(",")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiterString = " => ",
            value = {
                "3\\r\\n, abc\\r, \\n0\\r\\n, \\r\\n => abc|end",
                "1, 0\\r\\n0123456789abcdef\\r\\n0\\r\\n\\r\\n => 0123456789abcdef|end",
            })
    void chunksArrivingInPiecesAreReadTheSame(String pieces, String passed) {
        String[] parts = pieces.split(", ");
        assertTrue(parts.length > 1);
        assertEquals(passed.strip(), decode(new Framing.Chunked(), parts));
    }
}
