package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sd_notify client against a real unix datagram socket playing the service manager, at a path
 * and in the abstract namespace: the messages' bytes as systemd reads them, and a stored
 * descriptor that arrives as the same socket.
 */
@Timeout(30)
class NotifyTest {
    private Path directory;
    private int manager = -1;

    @AfterEach
    void close() throws IOException {
        Posix.closeQuietly(manager);
        if (directory != null) {
            Files.deleteIfExists(directory.resolve("notify"));
            Files.deleteIfExists(directory);
        }
    }

    private Notify atPath() throws IOException {
        directory = Files.createTempDirectory("notify-");
        String address = directory.resolve("notify").toString();
        manager = Posix.bindUnixDatagram(address);
        return new Notify(address);
    }

    private Notify abstractName() throws IOException {
        String address = "@portcullis-notify-test-" + UUID.randomUUID();
        manager = Posix.bindUnixDatagram(address);
        return new Notify(address);
    }

    private Posix.Received next() throws IOException {
        assertTrue(Posix.awaitReadable(manager, 5_000), "the manager got no message");
        return Posix.receive(manager, 4096).orElseThrow();
    }

    @Test
    void readyAndStoppingAreOneDatagramEachAtAPath() throws IOException {
        Notify notify = atPath();

        notify.ready();
        notify.stopping();

        assertEquals("READY=1\n", text(next()));
        assertEquals("STOPPING=1\n", text(next()));
    }

    @Test
    void anAbstractAddressReachesTheManagerWithoutAFile() throws IOException {
        Notify notify = abstractName();

        notify.status("serving 2 spawns");

        assertEquals("STATUS=serving 2 spawns\n", text(next()));
    }

    @Test
    void aStoredDescriptorArrivesAsTheSameListeningSocketWithItsName() throws IOException {
        Notify notify = abstractName();
        int listener = Posix.listenTcp(new InetSocketAddress(Handoff.IPV4_LOOPBACK, 0), 4);
        try {
            notify.store("bot-1/proxy/127.0.0.1/39080", listener);

            Posix.Received got = next();
            assertEquals("FDSTORE=1\nFDNAME=bot-1/proxy/127.0.0.1/39080\n", text(got));
            assertEquals(1, got.fds().length);
            try {
                assertEquals(inode(listener), inode(got.fds()[0]));
                assertEquals(Posix.localAddress(listener), Posix.localAddress(got.fds()[0]));
            } finally {
                Posix.closeQuietly(got.fds());
            }
        } finally {
            Posix.closeQuietly(listener);
        }
    }

    @Test
    void removingNamesTheDescriptorsAndCarriesNone() throws IOException {
        Notify notify = atPath();

        notify.remove("bot-1/dns/127.0.0.1/53");

        Posix.Received got = next();
        assertEquals("FDSTOREREMOVE=1\nFDNAME=bot-1/dns/127.0.0.1/53\n", text(got));
        assertArrayEquals(new int[0], got.fds());
    }

    @Test
    void aManagerThatIsGoneIsAFailureNotASilentLoss() throws IOException {
        directory = Files.createTempDirectory("notify-");
        Notify notify = new Notify(directory.resolve("notify").toString());

        Posix.Failure failure = assertThrows(Posix.Failure.class, notify::ready);
        assertEquals(Posix.ENOENT, failure.errno());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", "relative/notify", "vsock:2:1234", "@", "/"})
    void anAddressThatIsNoUnixSocketsIsRefused(String address) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new Notify(address));
        assertEquals(
                "NOTIFY_SOCKET: " + address + " (expected: an absolute path, or @ and an abstract name)",
                refused.getMessage());
    }

    @Test
    void theEnvironmentNamesTheManagerOrNone() {
        assertEquals(
                "/run/systemd/notify",
                Notify.from(Map.of("NOTIFY_SOCKET", "/run/systemd/notify"))
                        .orElseThrow()
                        .address());
        assertFalse(Notify.from(Map.of()).isPresent());
        assertFalse(Notify.from(Map.of("NOTIFY_SOCKET", "")).isPresent());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a:b|name: a:b (expected: printable ASCII without ':')",
                "''|name: 0 characters (expected: 1-255)",
                "tab\there|name: tab?here (expected: printable ASCII without ':')",
                "é|name: ? (expected: printable ASCII without ':')",
            })
    void aNameTheManagerWouldRefuseIsRefusedHere(String name, String message) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Notify.checkName(name));
        assertEquals(message, refused.getMessage());
    }

    @Test
    void namesUpTo255PrintableCharactersPass() {
        Notify.checkName("x".repeat(255));
        Notify.checkName("bot-1/proxy/0-0-0-0-0-0-0-1/39080");
        assertThrows(IllegalArgumentException.class, () -> Notify.checkName("x".repeat(256)));
    }

    private static String text(Posix.Received received) {
        return new String(received.data(), StandardCharsets.UTF_8);
    }

    private static String inode(int fd) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
    }
}
