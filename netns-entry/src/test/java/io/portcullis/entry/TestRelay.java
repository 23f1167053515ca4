package io.portcullis.entry;

import io.portcullis.entry.wire.Preamble;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A real relay stand-in on a unix socket: records each connection's preamble, then serves it. */
final class TestRelay implements AutoCloseable {

    /** What the relay does with one connection after its preamble. */
    @FunctionalInterface
    interface Service {
        void serve(SocketChannel connection) throws IOException;
    }

    static final Service ECHO = connection -> {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        while (connection.read(buffer) >= 0) {
            buffer.flip();
            while (buffer.hasRemaining()) {
                connection.write(buffer);
            }
            buffer.clear();
        }
        connection.shutdownOutput();
    };

    private final Path socket;
    private final ServerSocketChannel server;
    private final Service service;
    private final BlockingQueue<Preamble> preambles = new LinkedBlockingQueue<>();

    private final CountDownLatch accepting;

    private TestRelay(Path socket, Service service, int backlog, boolean accepting) throws IOException {
        this.socket = socket;
        this.service = service;
        this.accepting = new CountDownLatch(accepting ? 0 : 1);
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), backlog);
        Thread.ofVirtual().start(this::acceptLoop);
    }

    static TestRelay start(Path socket, Service service) throws IOException {
        return new TestRelay(socket, service, 0, true);
    }

    /** A relay that listens with a tiny accept queue but accepts nothing until {@link #accept()}. */
    static TestRelay stalled(Path socket, Service service) throws IOException {
        return new TestRelay(socket, service, 1, false);
    }

    void accept() {
        accepting.countDown();
    }

    Path socket() {
        return socket;
    }

    /** The next preamble the relay read, waiting up to 5 s. */
    Preamble nextPreamble() throws InterruptedException {
        Preamble preamble = preambles.poll(5, TimeUnit.SECONDS);
        if (preamble == null) {
            throw new AssertionError("no preamble reached the relay within 5 s");
        }
        return preamble;
    }

    int preamblesSeen() {
        return preambles.size();
    }

    @Override
    public void close() throws IOException {
        server.close();
        accepting.countDown();
        Files.deleteIfExists(socket);
    }

    private void acceptLoop() {
        try {
            accepting.await();
        } catch (InterruptedException e) {
            return;
        }
        while (server.isOpen()) {
            try {
                SocketChannel connection = server.accept();
                Thread.ofVirtual().start(() -> handle(connection));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void handle(SocketChannel connection) {
        try (connection) {
            ByteBuffer head = ByteBuffer.allocate(Preamble.LENGTH);
            while (head.hasRemaining() && connection.read(head) >= 0) {
                // a preamble may arrive in pieces
            }
            Preamble preamble = head.hasRemaining() ? null : Preamble.decode(head.flip());
            if (preamble == null) {
                throw new AssertionError("the entry sent a bad preamble");
            }
            preambles.add(preamble);
            service.serve(connection);
        } catch (IOException e) {
            // the client went away; the test asserts on what it saw
        }
    }
}
