package io.portcullis.relay.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.record.ConnectionRecord;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The check on a tunnel's first bytes (R23), as the relay runs it: real ClientHello records on a
 * client channel, an upstream that must hear nothing until the ClientHello passed, and the code on
 * the connection's decision line.
 */
class ClientHelloCheckTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "jdk,                         pass",
        "one host name,               pass",
        "two host names in one list,  sni-mismatch",
        "two server_name extensions,  not-tls",
        "ALPN twice,                  not-tls",
        "another host name,           sni-mismatch",
    })
    void aClientHelloForPubTest(String name, String expected) throws Exception {
        String alpn = ClientHelloShapeTest.ext(0x0010, "0003" + "02" + ClientHelloShapeTest.hex("h2"));
        String body = switch (name) {
            case "jdk" -> HexFormat.of().formatHex(ClientHelloShapeTest.jdkClientHelloBody("pub.test"));
            case "one host name" -> hello(sni("pub.test"));
            case "two host names in one list" ->
                hello(ClientHelloShapeTest.sni(
                        ClientHelloShapeTest.name(0, "pub.test"), ClientHelloShapeTest.name(0, "other.test")));
            case "two server_name extensions" -> hello(sni("pub.test"), sni("other.test"));
            case "ALPN twice" -> hello(sni("pub.test"), alpn, alpn);
            case "another host name" -> hello(sni("other.test"));
            default -> throw new IllegalArgumentException(name);
        };
        byte[] record = record(HexFormat.of().parseHex(body));

        EmbeddedChannel client = new EmbeddedChannel();
        EmbeddedChannel upstream = new EmbeddedChannel();
        client.config().setAutoRead(false);
        upstream.config().setAutoRead(false);
        List<Decision> lines = new ArrayList<>();
        ConnectionRecord.attach(client, "s", 1, InstantSource.system(), lines::add, Traffic.own());
        List<ByteBuf> passed = new ArrayList<>();
        ClientHelloCheck.await(
                        client,
                        upstream,
                        Unpooled.wrappedBuffer(record),
                        new FirstBytes(true, Optional.of("pub.test")),
                        10_000)
                .thenAccept(hello -> {
                    if (hello instanceof ClientHelloCheck.Passed ok) {
                        passed.add(ok.held());
                    }
                });
        client.runPendingTasks();
        upstream.runPendingTasks();
        client.runPendingTasks();

        assertNull(upstream.readOutbound(), "the check never writes upstream itself");
        if (expected.equals("pass")) {
            assertEquals(1, passed.size());
            assertEquals(Unpooled.wrappedBuffer(record), passed.getFirst(), "every byte held goes on unchanged");
            passed.getFirst().release();
            assertTrue(client.isActive() && upstream.isActive());
            client.close();
        } else {
            assertEquals(List.of(), passed, "nothing is passed on");
            assertFalse(client.isActive(), "the client is closed");
            assertFalse(upstream.isActive(), "the upstream is closed");
            client.runPendingTasks();
            assertEquals(1, lines.size(), lines.toString());
            assertEquals(
                    Optional.of(DenyCode.of(expected).orElseThrow()),
                    lines.getFirst().code());
        }
        upstream.finishAndReleaseAll();
        client.finishAndReleaseAll();
    }

    private static String hello(String... extensions) {
        return ClientHelloShapeTest.hello(extensions);
    }

    private static String sni(String host) {
        return ClientHelloShapeTest.sni(ClientHelloShapeTest.name(0, host));
    }

    /** {@code body} as a ClientHello in one handshake record. */
    private static byte[] record(byte[] body) {
        byte[] record = new byte[5 + 4 + body.length];
        int handshake = 4 + body.length;
        record[0] = 0x16;
        record[1] = 3;
        record[2] = 1;
        record[3] = (byte) (handshake >> 8);
        record[4] = (byte) handshake;
        record[5] = 1;
        record[6] = (byte) (body.length >> 16);
        record[7] = (byte) (body.length >> 8);
        record[8] = (byte) body.length;
        System.arraycopy(body, 0, record, 9, body.length);
        return record;
    }
}
