package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The relay's side reads the key before anything else counts (finding 4 of the review of issue
 * 26): a message that does not carry the spawn's key is {@link Receiver.Unkeyed}, however good the
 * rest, so it never uses the spawn up; one that does is judged as before, and its faults are
 * {@link Receiver.Refused}.
 */
@Timeout(30)
class ReceiverKeyTest {
    private static final Handoff.Key KEY = HandoffTest.key();
    private static final Handoff.Key OTHER = Handoff.Key.parse("ff".repeat(32));

    private Path directory;
    private int server;
    private int proxy;
    private Handoff.Socket socket;

    @BeforeEach
    void listen() throws IOException {
        directory = Files.createTempDirectory("receiver-key-");
        server = Posix.listenUnix(directory.resolve("relay.sock").toString(), 4);
        proxy = Posix.listenTcp(new InetSocketAddress(Handoff.IPV4_LOOPBACK, 0), 4);
        socket =
                new Handoff.Socket(Handoff.Kind.PROXY, Posix.localAddress(proxy).orElseThrow());
    }

    @AfterEach
    void close() throws IOException {
        Posix.closeQuietly(proxy);
        Posix.closeQuietly(server);
        Files.deleteIfExists(directory.resolve("relay.sock"));
        Files.deleteIfExists(directory);
    }

    /** Sends {@code message} (with the proxy socket attached), then closes when {@code close}; what the relay's side makes of it. */
    private Receiver.Received receive(byte[] message, boolean close) throws IOException {
        int client = Posix.connectUnix(directory.resolve("relay.sock").toString(), 5000);
        int connection = Posix.accept(server);
        try {
            Posix.sendWithFds(client, message, new int[] {proxy});
            if (close) {
                Posix.closeQuietly(client);
            }
            Receiver.Received outcome = Receiver.receive(
                    connection,
                    ProcessHandle.current().pid(),
                    KEY,
                    List.of(new Receiver.Wanted(Handoff.Kind.PROXY, socket.address(), true)),
                    2000);
            if (outcome instanceof Receiver.Accepted accepted) {
                accepted.sockets().forEach(held -> Posix.closeQuietly(held.fd()));
            }
            return outcome;
        } finally {
            Posix.closeQuietly(client);
            Posix.closeQuietly(connection);
        }
    }

    private byte[] message(Handoff.Key key) {
        return new Handoff(key, List.of(socket)).encode();
    }

    @Test
    void aGoodHandOverWithTheSpawnsKeyIsAccepted() throws IOException {
        Receiver.Received outcome = receive(message(KEY), false);

        assertEquals(
                List.of(socket),
                ((Receiver.Accepted) outcome)
                        .sockets().stream().map(Receiver.Held::socket).toList());
    }

    @Test
    void aGoodHandOverWithAnotherKeyIsUnkeyed() throws IOException {
        Receiver.Received outcome = receive(message(OTHER), false);

        assertEquals(new Receiver.Unkeyed(Receiver.WRONG_KEY), outcome);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "not a hand-over, unkeyed",
        "the old format without a key, unkeyed",
        "cut inside the key, unkeyed",
        "cut after the key, refused",
        "the spawn's key and no socket, refused",
        "the spawn's key and a socket not called for, refused",
    })
    void whatComesBeforeTheWholeKeyNeverUsesTheSpawnUp(String message, String outcome) throws IOException {
        byte[] good = message(KEY);
        byte[] bytes = switch (message) {
            case "not a hand-over" -> "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            case "the old format without a key" -> {
                byte[] old = Arrays.copyOfRange(good, Handoff.KEYED - 4, good.length);
                System.arraycopy("PCH1".getBytes(StandardCharsets.US_ASCII), 0, old, 0, 4);
                yield old;
            }
            case "cut inside the key" -> Arrays.copyOf(good, Handoff.KEYED - 1);
            case "cut after the key" -> Arrays.copyOf(good, Handoff.KEYED + 1);
            case "the spawn's key and no socket" -> {
                byte[] none = Arrays.copyOf(good, Handoff.HEADER);
                none[Handoff.KEYED] = 0;
                yield none;
            }
            default ->
                new Handoff(
                                KEY,
                                List.of(new Handoff.Socket(
                                        Handoff.Kind.DOOR,
                                        new InetSocketAddress(Handoff.IPV4_LOOPBACK, socket.port()))))
                        .encode();
        };

        Receiver.Received got = receive(bytes, true);

        assertEquals(
                outcome,
                got instanceof Receiver.Unkeyed
                        ? "unkeyed"
                        : got.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
                got.toString());
    }
}
