package io.portcullis.relay.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The shape a ClientHello must have before its server name is believed (R23). */
class ClientHelloCheckTest {

    /** The body of the ClientHello the JDK's own TLS client sends first, after both headers. */
    private static byte[] jdkClientHelloBody() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine("www.example.test", 443);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName("www.example.test")));
        engine.setSSLParameters(parameters);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] record = new byte[out.remaining()];
        out.get(record);
        assertEquals(0x16, record[0], "a handshake record");
        assertEquals(1, record[5], "a ClientHello");
        int length = ((record[6] & 0xff) << 16) | ((record[7] & 0xff) << 8) | (record[8] & 0xff);
        byte[] body = new byte[length];
        System.arraycopy(record, 9, body, 0, length);
        return body;
    }

    @Test
    void aRealClientHelloIsWellFormedAndAnyCutOfItIsNot() throws Exception {
        byte[] body = jdkClientHelloBody();
        assertTrue(ClientHelloCheck.wellFormed(Unpooled.wrappedBuffer(body)));
        // Cut right after the compression methods it is a ClientHello without extensions, which is one.
        int session = 34 + 1 + (body[34] & 0xff);
        int suites = session + 2 + (((body[session] & 0xff) << 8) | (body[session + 1] & 0xff));
        int withoutExtensions = suites + 1 + (body[suites] & 0xff);
        for (int cut = 0; cut < body.length; cut++) {
            if (cut == withoutExtensions) {
                continue;
            }
            byte[] shorter = new byte[cut];
            System.arraycopy(body, 0, shorter, 0, cut);
            assertEquals(false, ClientHelloCheck.wellFormed(Unpooled.wrappedBuffer(shorter)), "cut at " + cut);
        }
        byte[] longer = new byte[body.length + 1];
        System.arraycopy(body, 0, longer, 0, body.length);
        assertEquals(false, ClientHelloCheck.wellFormed(Unpooled.wrappedBuffer(longer)), "one byte too many");
    }

    /** Hand-made bodies: version, 32 random bytes, session id, suites, compression, extensions. */
    @ParameterizedTest(name = "{0} -> {2}")
    @CsvSource({
        "minimal TLS 1.2 without extensions, 0303 R 00 0002c02f 0100, true",
        "with an empty extensions block, 0303 R 00 0002c02f 0100 0000, true",
        "TLS 1.0, 0301 R 00 0002002f 0100, true",
        "SSL 3.0, 0300 R 00 0002002f 0100, false",
        "version 4.1, 0401 R 00 0002002f 0100, false",
        "a session id of 33 bytes, 0303 R 21 S33 0002c02f 0100, false",
        "no cipher suite, 0303 R 00 0000 0100, false",
        "an odd cipher suite list, 0303 R 00 0003c02f00 0100, false",
        "no compression method, 0303 R 00 0002c02f 00, false",
        "extensions longer than the body, 0303 R 00 0002c02f 0100 0004 0000, false",
        "one stray byte after the compression, 0303 R 00 0002c02f 0100 00, false",
        "the empty body of a 9-byte fake, '', false",
    })
    void theShapeIsChecked(String name, String spaced, boolean wellFormed) {
        StringBuilder hex = new StringBuilder();
        for (String part : spaced.isEmpty() ? new String[0] : spaced.split(" ")) {
            hex.append(
                    switch (part) {
                        case "R" -> "ab".repeat(32);
                        case "S33" -> "cd".repeat(33);
                        default -> part;
                    });
        }
        ByteBuf body = Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex));
        int before = body.readerIndex();
        assertEquals(wellFormed, ClientHelloCheck.wellFormed(body), ByteBufUtil.hexDump(body));
        assertEquals(before, body.readerIndex(), "the buffer's indexes stay where they were");
    }
}
