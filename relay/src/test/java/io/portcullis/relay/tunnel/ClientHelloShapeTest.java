package io.portcullis.relay.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The shape a ClientHello must have before its server name is believed (R23). */
class ClientHelloShapeTest {

    /** The fixed fields: TLS 1.2, 32 random bytes, no session id, one suite, no compression. */
    static final String FIXED = "0303" + "ab".repeat(32) + "00" + "0002c02f" + "0100";

    /** The body of the ClientHello the JDK's own TLS client sends first, after both headers. */
    static byte[] jdkClientHelloBody(String serverName) throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine(serverName, 443);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(serverName)));
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

    static boolean wellFormed(ByteBuf body) {
        return ClientHelloShape.flaw(body).isEmpty();
    }

    @Test
    void aRealClientHelloIsWellFormedAndAnyCutOfItIsNot() throws Exception {
        byte[] body = jdkClientHelloBody("www.example.test");
        assertEquals(Optional.empty(), ClientHelloShape.flaw(Unpooled.wrappedBuffer(body)));
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
            assertEquals(false, wellFormed(Unpooled.wrappedBuffer(shorter)), "cut at " + cut);
        }
        byte[] longer = new byte[body.length + 1];
        System.arraycopy(body, 0, longer, 0, body.length);
        assertEquals(false, wellFormed(Unpooled.wrappedBuffer(longer)), "one byte too many");
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
        assertEquals(wellFormed, wellFormed(body), ByteBufUtil.hexDump(body));
        assertEquals(before, body.readerIndex(), "the buffer's indexes stay where they were");
    }

    /**
     * Real ClientHello bytes, built field by field, with their extensions (R23, issue 26): a
     * server_name list of {@code pub.test} then {@code other.test}, or two server_name extensions,
     * passed, because only the first name was read. One host name passes; more than one server
     * named is {@code sni-mismatch}; any extension twice, or a broken extension block or list, is
     * {@code not-tls}.
     */
    static Stream<Arguments> helloes() {
        String alpn = ext(0x0010, "0003" + "02" + hex("h2"));
        String versions = ext(0x002b, "04" + "0304" + "0303");
        return Stream.of(
                Arguments.of("one host name", hello(sni(name(0, "pub.test"))), "pass"),
                Arguments.of(
                        "one host name among other extensions",
                        hello(versions, sni(name(0, "pub.test")), alpn),
                        "pass"),
                Arguments.of("no extension at all", FIXED, "pass"),
                Arguments.of("extensions without server_name", hello(versions, alpn), "pass"),
                Arguments.of(
                        "two host names in one list",
                        hello(sni(name(0, "pub.test"), name(0, "other.test"))),
                        "sni-mismatch"),
                Arguments.of(
                        "the same host name twice in one list",
                        hello(sni(name(0, "pub.test"), name(0, "pub.test"))),
                        "sni-mismatch"),
                Arguments.of(
                        "a host name then another name type",
                        hello(sni(name(0, "pub.test"), name(1, "other.test"))),
                        "sni-mismatch"),
                Arguments.of("another name type alone", hello(sni(name(1, "pub.test"))), "sni-mismatch"),
                Arguments.of(
                        "two server_name extensions",
                        hello(sni(name(0, "pub.test")), sni(name(0, "other.test"))),
                        "not-tls"),
                Arguments.of(
                        "two equal server_name extensions",
                        hello(sni(name(0, "pub.test")), sni(name(0, "pub.test"))),
                        "not-tls"),
                Arguments.of(
                        "server_name apart from its twin",
                        hello(sni(name(0, "pub.test")), versions, sni(name(0, "other.test"))),
                        "not-tls"),
                Arguments.of(
                        "supported_versions twice", hello(versions, sni(name(0, "pub.test")), versions), "not-tls"),
                Arguments.of("ALPN twice", hello(alpn, alpn), "not-tls"),
                Arguments.of("an empty server_name extension", hello(ext(0, "")), "not-tls"),
                Arguments.of("an empty server_name list", hello(ext(0, "0000")), "not-tls"),
                Arguments.of("an empty host name", hello(sni(name(0, ""))), "not-tls"),
                Arguments.of(
                        "a list shorter than its extension",
                        hello(ext(0, "000b" + name(0, "pub.test") + "00")),
                        "not-tls"),
                Arguments.of(
                        "a list longer than its extension", hello(ext(0, "000c" + name(0, "pub.test"))), "not-tls"),
                Arguments.of(
                        "a host name longer than its list",
                        hello(ext(0, "000b" + "00" + "0009" + hex("pub.test"))),
                        "not-tls"),
                Arguments.of("an entry cut after its type", hello(ext(0, "0001" + "00")), "not-tls"),
                Arguments.of(
                        "an extension longer than the block", FIXED + "0006" + "0000" + "0004" + "0000", "not-tls"),
                Arguments.of("an extension header cut short", FIXED + "0002" + "0000", "not-tls"));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("helloes")
    void theExtensionsAndTheServerNameListAreChecked(String name, String hex, String expected) {
        ByteBuf body = Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex));
        Optional<ClientHelloShape.Flaw> flaw = ClientHelloShape.flaw(body);
        assertEquals(expected, flaw.map(f -> f.code().code()).orElse("pass"), flaw.toString());
        assertEquals(0, body.readerIndex(), "the buffer's indexes stay where they were");
    }

    @Test
    void theJdkClientHelloWithOneNamePasses() throws Exception {
        Optional<ClientHelloShape.Flaw> flaw =
                ClientHelloShape.flaw(Unpooled.wrappedBuffer(jdkClientHelloBody("pub.test")));
        assertTrue(flaw.isEmpty(), flaw.toString());
    }

    /** A ClientHello body with these extensions. */
    static String hello(String... extensions) {
        String all = String.join("", extensions);
        return FIXED + u16(all.length() / 2) + all;
    }

    static String sni(String... entries) {
        String list = String.join("", entries);
        return ext(0, u16(list.length() / 2) + list);
    }

    static String name(int type, String host) {
        String bytes = hex(host);
        return String.format("%02x", type) + u16(bytes.length() / 2) + bytes;
    }

    static String ext(int type, String data) {
        return u16(type) + u16(data.length() / 2) + data;
    }

    static String u16(int value) {
        return String.format("%04x", value);
    }

    static String hex(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }
}
