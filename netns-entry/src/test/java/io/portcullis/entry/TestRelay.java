package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real relay stand-in on a unix socket: takes each hand-over with the relay's own {@link
 * Receiver} and the key {@link EntryProcess#KEY}, records what it got and holds the sockets until closed.
 */
final class TestRelay implements AutoCloseable {
    private final Path socket;
    private final int server;
    private final List<Receiver.Wanted> wanted;
    private final BlockingQueue<Receiver.Received> outcomes = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<Integer> held = new ConcurrentLinkedQueue<>();
    private final Thread acceptor;

    private TestRelay(Path socket, List<Receiver.Wanted> wanted) throws IOException {
        this.socket = socket;
        this.wanted = List.copyOf(wanted);
        this.server = Posix.listenUnix(socket.toString(), 8);
        this.acceptor = Thread.ofPlatform().daemon().start(this::acceptLoop);
    }

    /** A relay that takes the sockets in {@code wanted} and nothing else. */
    static TestRelay start(Path socket, List<Receiver.Wanted> wanted) throws IOException {
        return new TestRelay(socket, wanted);
    }

    Path socket() {
        return socket;
    }

    /** What the next hand-over came to, waiting up to 5 s. */
    Receiver.Received nextOutcome() throws InterruptedException {
        Receiver.Received outcome = outcomes.poll(5, TimeUnit.SECONDS);
        if (outcome == null) {
            throw new AssertionError("no hand-over reached the relay within 5 s");
        }
        return outcome;
    }

    @Override
    public void close() throws IOException {
        // Shut down first and wait for the accepting thread to leave: once the descriptor is closed
        // its number may be the next relay's, and a late accept here would take that relay's entry.
        Posix.shutdownQuietly(server);
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Posix.closeQuietly(server);
        held.forEach(Posix::closeQuietly);
        Files.deleteIfExists(socket);
    }

    private void acceptLoop() {
        while (true) {
            int connection;
            try {
                connection = Posix.accept(server);
            } catch (IOException e) {
                return;
            }
            Thread.ofVirtual().start(() -> handle(connection));
        }
    }

    private void handle(int connection) {
        try {
            Receiver.Received outcome =
                    Receiver.receive(connection, Posix.peerPid(connection), EntryProcess.KEY, wanted, 5000);
            String answer = switch (outcome) {
                case Receiver.Accepted accepted -> {
                    accepted.sockets().forEach(socket -> held.add(socket.fd()));
                    yield Handoff.ACCEPTED;
                }
                case Receiver.Refused refused -> Handoff.REFUSED + refused.reason();
                case Receiver.Unkeyed unkeyed -> Handoff.REFUSED + unkeyed.reason();
            };
            outcomes.add(outcome);
            Posix.sendAll(connection, (answer + "\n").getBytes(StandardCharsets.UTF_8), 0);
        } catch (IOException e) {
            // the entry went away; the test asserts on what it saw
        } finally {
            Posix.closeQuietly(connection);
        }
    }
}
