package io.portcullis.relay.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What an exchange may write upstream (SPEC R10, issue 26 item 18): one head, a body of exactly
 * the framed size, one end; every write past that fails and sends nothing.
 */
class OneRequestTest {

    /**
     * @param writes one letter per write: H a head, B:text a body piece, L:text the last piece, R raw
     *     bytes; separated by spaces
     * @param passed how many of the writes go through, in order, before the first refused one
     */
    @ParameterizedTest(name = "{0} [{1}] -> {2} written")
    @CsvSource(
            delimiter = '|',
            value = {
                "length 5 | H B:hello L:       | 3",
                "length 5 | H B:hel L:lo       | 3",
                "length 5 | H B:hello L: H     | 3",
                "length 5 | H B:hello L: B:x   | 3",
                "length 5 | H B:hello L: R:GET | 3",
                "length 5 | H B:hello B:x      | 2",
                "length 5 | H B:hell L:        | 2",
                "length 5 | B:hello            | 0",
                "length 5 | R:GET              | 0",
                "none     | H L:               | 2",
                "none     | H L: H             | 2",
                "none     | H B:x              | 1",
                "chunked  | H B:a B:bb L: B:x  | 4",
                "chunked  | H L:x H            | 2",
                "chunked  | H H                | 1",
            })
    void onlyTheOneFramedRequestIsWritten(String framing, String writes, int passed) {
        EmbeddedChannel channel = new EmbeddedChannel(new OneRequest(framing(framing)));
        List<ChannelFuture> results = new ArrayList<>();
        for (String write : writes.trim().split(" +")) {
            results.add(channel.writeAndFlush(message(write)));
        }

        int written = 0;
        while (written < results.size() && results.get(written).isSuccess()) {
            written++;
        }
        assertEquals(passed, written, writes);
        for (ChannelFuture refused : results.subList(written, results.size())) {
            assertInstanceOf(OneRequest.Refused.class, refused.cause(), writes);
        }
        int out = 0;
        for (Object message; (message = channel.readOutbound()) != null; out++) {
            ReferenceCountUtil.release(message);
        }
        assertEquals(passed, out);
        channel.finishAndReleaseAll();
    }

    private static Framing framing(String text) {
        return switch (text.split(" ")[0]) {
            case "length" -> new Framing.Length(Long.parseLong(text.split(" ")[1]));
            case "none" -> new Framing.None();
            default -> new Framing.Chunked();
        };
    }

    private static Object message(String write) {
        String text = write.length() > 2 ? write.substring(2) : "";
        ByteBuf bytes = Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
        return switch (write.charAt(0)) {
            case 'H' -> {
                bytes.release();
                yield new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/");
            }
            case 'B' -> new DefaultHttpContent(bytes);
            case 'L' -> new DefaultLastHttpContent(bytes);
            default -> bytes;
        };
    }
}
