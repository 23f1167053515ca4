package io.portcullis.it.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.dns.DnsRecordType;
import io.portcullis.world.BulkPattern;
import io.portcullis.world.DnsAnswer;
import io.portcullis.world.OriginProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The world itself: no route out, a real DNS server (checked with dig), real origins, the guard. */
@NetnsTest
class WorldSelfTest {
    @RegisterExtension
    static final TestWorld world = TestWorld.create();

    @Test
    void thisNamespaceHasNoDefaultRouteAndCannotRouteToAnOutsideAddress() throws Exception {
        assertFalse(Run.of(List.of("ip", "route", "show"), "", 10).out().contains("default"));
        assertFalse(Run.of(List.of("ip", "-6", "route", "show"), "", 10).out().contains("default"));
        // `ip route get` asks the kernel's routing decision without sending a packet.
        Run outside = Run.of(List.of("ip", "route", "get", "8.8.8.8"), "", 10);
        assertTrue(outside.exit() != 0 && outside.err().contains("unreachable"), outside.toString());
        assertEquals(
                0,
                Run.of(List.of("ip", "route", "get", world.internetHost(0).getHostAddress()), "", 10)
                        .exit());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "8.8.8.8, refused",
        "192.0.2.1, refused",
        "2001:4860:4860::8888, refused",
        "10.0.0.1, refused",
        "127.0.0.1, allowed",
        "::1, allowed",
        "93.184.77.10, allowed",
        "192.168.77.11, allowed",
        "2001:4860:77::10, allowed",
        "93.184.77.1, allowed"
    })
    void theDialGuardAllowsLoopbackAndTheWorldOnly(String address, String expected) throws Exception {
        InetSocketAddress target = new InetSocketAddress(InetAddress.ofLiteral(address), 443);
        if (expected.equals("allowed")) {
            assertEquals(target, world.guard().check(target));
        } else {
            assertThrows(IllegalStateException.class, () -> world.guard().check(target));
        }
    }

    @Test
    void digGetsAAndAaaaOverUdpAndTcp() throws Exception {
        world.zone().set("www.example.test", DnsAnswer.of("93.184.77.10", "2001:4860:77::10"));
        assertEquals("93.184.77.10", dig("www.example.test", "A").strip());
        assertEquals("2001:4860:77::10", dig("www.example.test", "AAAA", "+tcp").strip());
        assertEquals(1, world.zone().queries("www.example.test", DnsRecordType.A));
        assertEquals(1, world.zone().queries("WWW.Example.Test.", DnsRecordType.AAAA));
    }

    @Test
    void aNameWithASequenceAnswersDifferentlyEachTime() throws Exception {
        world.zone().set("flip.test", DnsAnswer.of("93.184.77.10"), DnsAnswer.of("10.0.0.1"));
        assertEquals("93.184.77.10", dig("flip.test", "A").strip());
        assertEquals("10.0.0.1", dig("flip.test", "A").strip());
        assertEquals("10.0.0.1", dig("flip.test", "A", "+tcp").strip());
        assertEquals(3, world.zone().queries("flip.test"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"nxdomain, NXDOMAIN", "empty, NOERROR", "servfail, SERVFAIL", "unknown, NXDOMAIN"})
    void statusesAreServed(String kind, String status) throws Exception {
        switch (kind) {
            case "nxdomain" -> world.zone().set("x.test", DnsAnswer.nxdomain());
            case "empty" -> world.zone().set("x.test", DnsAnswer.empty());
            case "servfail" -> world.zone().set("x.test", DnsAnswer.servfail());
            default -> {}
        }
        String full = digFull("x.test", "A");
        assertTrue(full.contains("status: " + status), full);
        assertTrue(full.contains("ANSWER: 0"), full);
    }

    @Test
    void aDelayedAnswerArrivesLateAndASilentNameTimesOut() throws Exception {
        world.zone().set("slow.test", DnsAnswer.delayed(Duration.ofMillis(300), DnsAnswer.of("93.184.77.11")));
        long start = System.nanoTime();
        assertEquals("93.184.77.11", dig("slow.test", "A").strip());
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(300).toNanos());
        world.zone().set("never.test", DnsAnswer.silent());
        assertTrue(digFull("never.test", "A").contains("timed out"));
    }

    @Test
    void theHttpOriginAnswersWhoItIsAndRecordsTheExactBytes() throws Exception {
        byte[] request = ("POST /a?b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
                .getBytes(StandardCharsets.US_ASCII);
        String answer;
        try (Socket socket = world.connect(world.internetHost(0), OriginProcess.HTTP)) {
            socket.getOutputStream().write(request);
            socket.shutdownOutput();
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
        assertTrue(answer.contains("\"local\":\"93.184.77.10:80\""), answer);
        assertTrue(answer.contains("\"peer\":\"93.184.77.1:"), answer);
        assertTrue(answer.contains("\"method\":\"POST\",\"target\":\"/a?b\""), answer);
        String record = answer.replaceAll("(?s).*X-Origin-Record: (\\S+)\r\n.*", "$1");
        assertEquals(
                new String(request, StandardCharsets.US_ASCII),
                new String(world.recorded(record, Duration.ofSeconds(5)), StandardCharsets.US_ASCII));
    }

    @Test
    void theTlsOriginServesOnIpv6WithTheWorldsCertificate() throws Exception {
        SSLContext context = trusting();
        try (Socket plain = world.connect(world.internetHost(2), OriginProcess.TLS);
                SSLSocket tls = (SSLSocket)
                        context.getSocketFactory().createSocket(plain, "origin.test", OriginProcess.TLS, true)) {
            var parameters = tls.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(parameters);
            tls.getOutputStream()
                    .write("GET / HTTP/1.1\r\nHost: origin.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new String(tls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.contains("\"local\":\"[2001:4860:77::10]:443\""), answer);
            assertTrue(answer.contains("\"tls\":true"), answer);
        }
    }

    @Test
    void curlTrustsTheWorldsCertificateByName() throws Exception {
        InetSocketAddress host = world.guard().check(new InetSocketAddress(world.internetHost(0), OriginProcess.TLS));
        Run run = Run.of(
                List.of(
                        "curl",
                        "-sS",
                        "--max-time",
                        "10",
                        "--cacert",
                        world.tls().certificatePem().toString(),
                        "--resolve",
                        "www.example.test:443:" + host.getAddress().getHostAddress(),
                        "https://www.example.test/curl"),
                "",
                20);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"tls\":true") && run.out().contains("\"target\":\"/curl\""), run.out());
    }

    @Test
    void echoPassesHalfCloseThrough() throws Exception {
        byte[] sent = new byte[200_000];
        new Random(1).nextBytes(sent);
        try (Socket socket = world.connect(world.lanHost(0), OriginProcess.ECHO)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    socket.getOutputStream().write(sent);
                    socket.shutdownOutput();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            byte[] back = socket.getInputStream().readAllBytes();
            writer.join();
            assertEquals(sent.length, back.length);
            assertTrue(Arrays.equals(sent, back));
        }
    }

    @Test
    void bulkSendsThePatternAndChecksWhatItReceives() throws Exception {
        long length = 8L << 20;
        try (Socket socket = world.connect(world.internetHost(1), OriginProcess.BULK)) {
            socket.getOutputStream().write(("get " + length + "\n").getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            assertEquals(BulkPattern.crc32(length), crc(socket.getInputStream(), length));
        }
        try (Socket socket = world.connect(world.lanHost(1), OriginProcess.BULK)) {
            OutputStream out = socket.getOutputStream();
            out.write("put\n".getBytes(StandardCharsets.US_ASCII));
            BulkPattern.write(out, length);
            socket.shutdownOutput();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertEquals(length + " " + Long.toHexString(BulkPattern.crc32(length)) + "\n", answer);
        }
    }

    @Test
    void aSpawnNamespaceHasLoopbackAndNothingElse() throws Exception {
        Run run = Run.of(
                TestWorld.inSpawnNamespace(
                        List.of("/bin/sh", "-c", "ip -o link show; echo routes; ip route show; ip -6 route show")),
                "",
                10);
        assertEquals(0, run.exit(), run.err());
        List<String> links = new ArrayList<>(
                run.out().lines().takeWhile(l -> !l.equals("routes")).toList());
        assertEquals(1, links.size(), run.out());
        assertTrue(links.getFirst().contains(": lo:") && links.getFirst().contains("UP"), run.out());
        assertTrue(
                run.out().lines().dropWhile(l -> !l.equals("routes")).skip(1).allMatch(l -> l.contains("dev lo")),
                run.out());
    }

    private static long crc(InputStream in, long expectedLength) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        for (int n; (n = in.read(buffer)) > 0; total += n) {
            crc.update(buffer, 0, n);
        }
        assertEquals(expectedLength, total);
        return crc.getValue();
    }

    private static SSLContext trusting() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(world.tls().certificatePem())) {
            trust.setCertificateEntry(
                    "origin", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static String dig(String name, String type, String... options) throws Exception {
        List<String> argv = new ArrayList<>(List.of("+short"));
        argv.addAll(List.of(options));
        return digWith(name, type, argv);
    }

    private static String digFull(String name, String type) throws Exception {
        return digWith(name, type, List.of("+time=1", "+tries=1"));
    }

    private static String digWith(String name, String type, List<String> options) throws Exception {
        InetSocketAddress server = world.dns().address();
        List<String> argv = new ArrayList<>(List.of(
                "dig", "@" + server.getAddress().getHostAddress(), "-p", String.valueOf(server.getPort()), name, type));
        argv.addAll(options);
        return Run.of(argv, "", 15).out();
    }
}
