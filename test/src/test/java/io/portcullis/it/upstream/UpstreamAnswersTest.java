package io.portcullis.it.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.it.upstream.ScriptedProxy.Answer;
import io.portcullis.it.upstream.ScriptedProxy.Then;
import io.portcullis.it.world.NetnsTest;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.it.world.TestWorld;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import io.portcullis.world.DnsAnswer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How the relay reads an upstream proxy's answer to its CONNECT (SPEC R25), with answers a real
 * proxy rarely gives, from {@link ScriptedProxy}; and which targets never reach the proxy: a
 * bypassed one, and every target when the proxy's own name resolves into the deny list.
 */
@NetnsTest
class UpstreamAnswersTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    private static final String POLICY = """
            {"id": "answers", "hosts": [{"target": "origin.test:7", "scheme": "tcp"}, {"target": "two.test:7", "scheme": "tcp"},
              {"target": "origin.test:80", "scheme": "http"}]}
            """;
    private static final String ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n";

    /** A spawn's client that sends {@code CONNECT origin.test:7}, waits half a second and resets its connection. */
    private static final String RESET_AFTER_CONNECT = "python3 -c \"import os, socket, struct, time\n"
            + "s = socket.create_connection(('127.0.0.1', int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])))\n"
            + "s.sendall(b'CONNECT origin.test:7 HTTP/1.1\\r\\nHost: origin.test:7\\r\\n\\r\\n')\n"
            + "time.sleep(0.5)\n"
            + "s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))\n"
            + "s.close()\"";

    @BeforeEach
    void zone() {
        world.zone()
                .set("origin.test", DnsAnswer.of("93.184.77.10"))
                .set("two.test", DnsAnswer.of("93.184.77.10", "93.184.77.11"))
                .set("proxy.test", DnsAnswer.of("127.0.0.1"))
                .set("metadata-proxy.test", DnsAnswer.of("169.254.169.254"))
                .set("nat64-proxy.test", DnsAnswer.of("64:ff9b::a9fe:a9fe"));
    }

    @Test
    void aServersFirstBytesGluedToThe200ReachTheClientAfterTheRelays200() throws Exception {
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer(ESTABLISHED + "BANNER\n", Then.ECHO)))) {
            Outcome outcome = connect(proxy, "127.0.0.1:" + proxy.port(), "", "origin.test");
            assertEquals(ESTABLISHED + "BANNER\nping\n", outcome.answer(), outcome.toString());
            assertEquals(List.of("CONNECT 93.184.77.10:7 HTTP/1.1\r\nHost: 93.184.77.10:7"), proxy.heads());
            assertEquals("allow", Line.of(outcome.line()).verdict(), outcome.toString());
            assertEquals(200, Line.of(outcome.line()).upstream().status());
            assertEquals(12, outcome.line().bytesDown(), "the banner and the echo");
        }
    }

    @Test
    void a503MovesOnToTheNextCheckedAddress() throws Exception {
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(
                new Answer("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", Then.CLOSE),
                new Answer(ESTABLISHED, Then.ECHO)))) {
            Outcome outcome = connect(proxy, "127.0.0.1:" + proxy.port(), "", "two.test");
            assertEquals(ESTABLISHED + "ping\n", outcome.answer(), outcome.toString());
            assertEquals(
                    List.of(
                            "CONNECT 93.184.77.10:7 HTTP/1.1\r\nHost: 93.184.77.10:7",
                            "CONNECT 93.184.77.11:7 HTTP/1.1\r\nHost: 93.184.77.11:7"),
                    proxy.heads());
            assertEquals("93.184.77.11:7", Line.of(outcome.line()).dialed());
        }
    }

    @Test
    void a403IsFinalAndTold() throws Exception {
        try (ScriptedProxy proxy =
                new ScriptedProxy(List.of(new Answer("HTTP/1.0 403 Forbidden by policy\r\n\r\n", Then.CLOSE)))) {
            Outcome outcome = connect(proxy, "127.0.0.1:" + proxy.port(), "", "two.test");
            assertTrue(outcome.answer().startsWith("HTTP/1.1 502 Bad Gateway\r\n"), outcome.toString());
            assertTrue(outcome.answer().contains("Portcullis-Error: upstream-refused\r\n"), outcome.toString());
            assertTrue(outcome.answer().contains("(the upstream proxy answered 403)"), outcome.toString());
            assertEquals(1, proxy.heads().size(), "a refusal is not tried on the next address");
            assertEquals("upstream-refused", Line.of(outcome.line()).code());
        }
    }

    /** Garbage, an at once close, a head too long, a head never finished: none is an answer. */
    @Test
    void anythingButAStatusLineInTimeIsUpstreamFailed() throws Exception {
        List<Answer> broken = List.of(
                new Answer("SSH-2.0-OpenSSH_9.6\r\n\r\n", Then.CLOSE),
                new Answer("", Then.CLOSE),
                new Answer("HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(9000) + "\r\n\r\n", Then.HOLD),
                new Answer("HTTP/1.1 200 OK\r\n", Then.HOLD));
        for (Answer answer : broken) {
            try (ScriptedProxy proxy = new ScriptedProxy(List.of(answer))) {
                Outcome outcome = connect(
                        proxy,
                        "127.0.0.1:" + proxy.port(),
                        "",
                        "origin.test",
                        "\"limits\": {\"connectTimeoutMillis\": 1500}");
                String shown =
                        answer.bytes().substring(0, Math.min(20, answer.bytes().length()));
                assertTrue(outcome.answer().startsWith("HTTP/1.1 502 Bad Gateway\r\n"), shown + ": " + outcome);
                assertTrue(outcome.answer().contains("Portcullis-Error: upstream-failed\r\n"), shown + ": " + outcome);
                assertEquals("upstream-failed", Line.of(outcome.line()).code(), shown);
            }
        }
    }

    @Test
    void aProxyNameIsResolvedWithTheRelaysDnsAndJudgedAgainstTheDenyList() throws Exception {
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer(ESTABLISHED, Then.ECHO)))) {
            Outcome named = connect(proxy, "proxy.test:" + proxy.port(), "", "origin.test");
            assertEquals(ESTABLISHED + "ping\n", named.answer(), named.toString());

            for (String name : List.of("metadata-proxy.test", "nat64-proxy.test")) {
                Outcome metadata = connect(proxy, name + ":" + proxy.port(), "", "origin.test");
                assertTrue(metadata.answer().contains("Portcullis-Error: upstream-failed\r\n"), metadata.toString());
                assertNull(
                        Line.of(metadata.line()).upstream(),
                        name + ": the proxy's deny-listed address was never dialed");
            }
            assertEquals(1, proxy.heads().size(), proxy.heads().toString());
        }
    }

    @Test
    void aBypassedTargetIsDialedDirectly() throws Exception {
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer(ESTABLISHED, Then.ECHO)))) {
            Outcome outcome =
                    connect(proxy, "127.0.0.1:" + proxy.port(), ", \"bypass\": [\"origin.test\"]", "origin.test");
            assertEquals(ESTABLISHED + "ping\n", outcome.answer(), outcome.toString());
            assertEquals(List.of(), proxy.heads());
            assertNull(Line.of(outcome.line()).upstream());
            assertEquals("93.184.77.10:7", Line.of(outcome.line()).dialed());
        }
    }

    /**
     * A client that resets while the proxy itself is still being dialed (its accept queue full, so
     * the SYN goes unanswered): the relay's connection attempt to the proxy ends at once instead of
     * waiting out the connect timeout, and the line blames neither the proxy nor the relay.
     */
    @Test
    void aClientThatResetsWhileTheProxyIsDialedEndsTheDialAndIsNotTheProxysFailure() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> queued = new ArrayList<>();
            try {
                for (boolean full = false; !full; ) {
                    Socket next = new Socket();
                    queued.add(next);
                    try {
                        next.connect(silent.getLocalSocketAddress(), 200);
                    } catch (SocketTimeoutException e) {
                        full = true;
                    }
                    assertTrue(queued.size() < 16, "the accept queue never filled");
                }
                String host =
                        host("127.0.0.1:" + silent.getLocalPort(), "", "\"limits\": {\"connectTimeoutMillis\": 20000}");
                try (Spawn spawn = Spawn.withHost(world.dir(), host, POLICY)) {
                    long start = System.nanoTime();
                    // A reset, not a FIN: a client that only ends its input may still want its tunnel.
                    Run run = spawn.run(RESET_AFTER_CONNECT, 60);
                    Decision line = spawn.next();
                    assertEquals("client-closed", Line.of(line).code(), line + " " + run);
                    for (long deadline = System.nanoTime() + 5_000_000_000L; dialing(silent.getLocalPort()); ) {
                        assertTrue(System.nanoTime() < deadline, "the dial to the proxy outlived its client by 5 s");
                        Thread.sleep(50);
                    }
                    assertTrue(System.nanoTime() - start < 15_000_000_000L, "within the 20 s connect timeout");
                }
            } finally {
                for (Socket socket : queued) {
                    socket.close();
                }
            }
        }
    }

    /** Whether a connection to {@code port} on loopback is still in SYN-SENT (read with {@code ss}). */
    private static boolean dialing(int port) throws Exception {
        Process ss = new ProcessBuilder("ss", "-Htn", "state", "syn-sent", "( dport = :" + port + " )")
                .redirectErrorStream(true)
                .start();
        String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, ss.waitFor(), out);
        return !out.isBlank();
    }

    /** A client that resets its connection while the proxy has not answered: the relay gives the handshake up. */
    @Test
    void aClientThatResetsDuringTheHandshakeClosesTheProxysConnectionAtOnce() throws Exception {
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer("", Then.HOLD)))) {
            String host = host("127.0.0.1:" + proxy.port(), "", "\"limits\": {\"connectTimeoutMillis\": 20000}");
            try (Spawn spawn = Spawn.withHost(world.dir(), host, POLICY)) {
                long start = System.nanoTime();
                Run run = spawn.run(RESET_AFTER_CONNECT, 60);
                assertEquals(0, run.exit(), run.toString());
                for (long deadline = System.nanoTime() + 5_000_000_000L; proxy.ended() == 0; ) {
                    assertTrue(System.nanoTime() < deadline, "the proxy's connection outlived the client by 5 s");
                    Thread.sleep(20);
                }
                assertTrue(System.nanoTime() - start < 15_000_000_000L, "given up before the 20 s answer timeout");
                assertEquals(1, proxy.heads().size(), proxy.heads().toString());
            }
        }
    }

    @Test
    void aPlainRequestGoesInAbsoluteFormAndTheProxysChallengeIsUpstreamRefused() throws Exception {
        String challenge =
                "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp-internal\"\r\n"
                        + "Content-Length: 29\r\n\r\nAsk corp-internal IT for help";
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer(challenge, Then.CLOSE)));
                Spawn spawn = Spawn.withHost(world.dir(), host("127.0.0.1:" + proxy.port(), "", ""), POLICY)) {
            Run run = plainGet(spawn);
            assertTrue(run.out().startsWith("HTTP/1.1 502 "), run.toString());
            assertTrue(run.out().contains("\r\nPortcullis-Error: upstream-refused\r\n"), run.out());
            assertTrue(run.out().contains("(the upstream proxy answered 407)"), run.out());
            assertTrue(!run.out().contains("Proxy-Authenticate") && !run.out().contains("corp-internal"), run.out());
            assertEquals(1, proxy.heads().size(), proxy.heads().toString());
            assertTrue(
                    proxy.heads().getFirst().startsWith("GET http://93.184.77.10:80/x HTTP/1.1\r\n"),
                    proxy.heads().toString());
            assertTrue(
                    proxy.heads().getFirst().contains("\r\nHost: origin.test\r\n"),
                    proxy.heads().toString());
            Decision line = spawn.next();
            assertEquals("upstream-refused", Line.of(line).code(), line.toString());
            assertEquals(407, Line.of(line).upstream().status(), line.toString());
            assertEquals("http://93.184.77.10:80", Line.of(line).upstream().sent(), line.toString());
        }
    }

    @Test
    void anyOtherAnswerThroughTheProxyIsTheClientsAndItsStatusIsInTheLine() throws Exception {
        // A 403 may be the proxy's page or the origin's answer: nothing in it says which, so it is passed.
        String page = "HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\nno way";
        try (ScriptedProxy proxy = new ScriptedProxy(List.of(new Answer(page, Then.CLOSE)));
                Spawn spawn = Spawn.withHost(world.dir(), host("127.0.0.1:" + proxy.port(), "", ""), POLICY)) {
            Run run = plainGet(spawn);
            assertTrue(run.out().startsWith("HTTP/1.1 403 "), run.toString());
            assertTrue(run.out().endsWith("\r\n\r\nno way"), run.out());
            Decision line = spawn.next();
            assertEquals("allow", Line.of(line).verdict(), line.toString());
            assertEquals(403, Line.of(line).upstream().status(), line.toString());
        }
    }

    /** {@code GET http://origin.test/x} from the spawn, through its proxy port. */
    private static Run plainGet(Spawn spawn) throws Exception {
        return spawn.run(
                "printf 'GET http://origin.test/x HTTP/1.1\\r\\nHost: origin.test\\r\\n\\r\\n'"
                        + " | socat -t 3 -T 10 - TCP:127.0.0.1:${HTTP_PROXY##*:}",
                60);
    }

    private static String host(String proxyAuthority, String upstreamMore, String hostMore) {
        return "{\"dns\": {\"servers\": [\"" + world.dns().hostConfigForm() + "\"], \"timeoutMillis\": 2000},"
                + " \"upstream\": {\"proxy\": \"http://" + proxyAuthority + "\"" + upstreamMore + "}"
                + (hostMore.isEmpty() ? "" : ", " + hostMore) + "}";
    }

    private record Outcome(String answer, Decision line, Run run) {}

    private static Outcome connect(ScriptedProxy proxy, String proxyAuthority, String upstreamMore, String target)
            throws Exception {
        return connect(proxy, proxyAuthority, upstreamMore, target, "");
    }

    /** One CONNECT to {@code target}:7 from a spawn, then {@code ping}, through a relay whose upstream is {@code proxyAuthority}. */
    private static Outcome connect(
            ScriptedProxy proxy, String proxyAuthority, String upstreamMore, String target, String hostMore)
            throws Exception {
        try (Spawn spawn = Spawn.withHost(world.dir(), host(proxyAuthority, upstreamMore, hostMore), POLICY)) {
            Run run = spawn.run(
                    "(printf 'CONNECT " + target + ":7 HTTP/1.1\\r\\nHost: " + target
                            + ":7\\r\\n\\r\\n'; sleep 0.5; printf 'ping\\n'; sleep 1)"
                            + " | socat -t 3 -T 10 - TCP:127.0.0.1:${HTTP_PROXY##*:}",
                    60);
            return new Outcome(run.out(), spawn.next(), run);
        }
    }
}
