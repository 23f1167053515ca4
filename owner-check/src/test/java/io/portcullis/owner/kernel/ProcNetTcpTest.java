package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The /proc/net/tcp fallback against tables captured from listeners of every shape. */
class ProcNetTcpTest {
    private final ProcNetTcp tables = new ProcNetTcp(new ProcRoot(captured("listeners")));

    @ParameterizedTest(name = "{0} -> {1} {2} uid {4}")
    @CsvSource({
        "46001, INET,  127.0.0.1, false, 0,    26061",
        "46002, INET,  0.0.0.0,   false, 0,    26068",
        "46003, INET6, ::,        false, 0,    24941",
        "46004, INET6, ::,        false, 0,    26069",
        "46005, INET6, 127.0.0.1, true,  0,    26098",
        "46006, INET6, ::1,       false, 4100, 24953",
        "46007, INET,  127.0.0.2, false, 4200, 26072",
    })
    void readsEachListener(int port, TcpListener.Family family, String address, boolean mapped, int uid, long inode)
            throws IOException {
        List<TcpListener> found = tables.listening(port);
        assertEquals(
                List.of(new TcpListener(
                        family,
                        java.net.InetAddress.ofLiteral(address),
                        mapped,
                        port,
                        uid,
                        inode,
                        family == TcpListener.Family.INET ? TcpListener.V6Only.OFF : TcpListener.V6Only.UNKNOWN,
                        0)),
                found);
    }

    @Test
    void skipsSocketsThatDoNotListen() throws IOException {
        assertEquals(1, tables.listening(46001).size());
    }

    @Test
    void findsNothingOnAnUnusedPort() throws IOException {
        assertEquals(List.of(), tables.listening(46099));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "too few fields|   0: 0100007F:B3B1 00000000:0000 0A",
                "short address|   0: 00007F:B3B1 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1 1",
                "bad port|   0: 0100007F:ZZZZ 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1 1",
                "bad uid|   0: 0100007F:B3B1 00000000:0000 0A 00000000:00000000 00:00000000 00000000 x 0 1 1",
            })
    void refusesAMalformedRow(String name, String row) {
        assertThrows(
                IOException.class, () -> ProcNetTcp.parse("header\n" + row + "\n", TcpListener.Family.INET, 46001));
    }

    @Test
    void aMissingTableIsAnError() {
        ProcNetTcp missing = new ProcNetTcp(new ProcRoot(Path.of("/nonexistent-proc-root")));
        assertThrows(IOException.class, () -> missing.listening(80));
    }

    static Path captured(String name) {
        try {
            return Path.of(ProcNetTcpTest.class.getResource("/proc/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
