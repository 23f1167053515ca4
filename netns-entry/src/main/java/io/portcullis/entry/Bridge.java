package io.portcullis.entry;

import io.portcullis.entry.wire.Preamble;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Carries accepted connections to the relay: each gets a new connection to the relay's unix socket,
 * the preamble, then the bytes both ways. The end of one direction becomes a half-close of the
 * other side; a failure in either direction closes both.
 */
final class Bridge {

    /**
     * Per direction, a buffer starts small, because a spawn may hold hundreds of idle connections,
     * and doubles each time a read fills it, up to the largest size, so bulk transfers take few calls.
     */
    static final int FIRST_BUFFER_BYTES = 2 * 1024;

    static final int LARGEST_BUFFER_BYTES = 64 * 1024;

    /** How long a connection waits for a relay whose accept queue is full before it is closed. */
    static final Duration BUSY_RELAY_WAIT = Duration.ofSeconds(2);

    private final UnixDomainSocketAddress relay;
    private final Workers workers;
    private final PrintStream log;
    private final AtomicBoolean relayDown = new AtomicBoolean();

    Bridge(Path relay, Workers workers, PrintStream log) {
        this.relay = UnixDomainSocketAddress.of(relay);
        this.workers = workers;
        this.log = log;
    }

    /**
     * Runs on one of the workers until its direction has ended; the other direction takes a second
     * one. Whichever direction ends last closes both sockets, so neither thread waits for the other:
     * a wait and its wake-up cost a futex call and a context switch per connection.
     */
    void carry(SocketChannel client, Preamble preamble) {
        SocketChannel upstream;
        try {
            upstream = dial(preamble);
        } catch (IOException e) {
            if (!relayDown.getAndSet(true)) {
                log.println("portcullis entry: relay " + relay.getPath() + " unreachable (" + e.getMessage()
                        + "); closing new connections until it is back");
            }
            reset(client);
            return;
        }
        if (relayDown.getAndSet(false)) {
            log.println("portcullis entry: relay " + relay.getPath() + " reachable again");
        }
        AtomicInteger copying = new AtomicInteger(2);
        Runnable ended = () -> {
            if (copying.decrementAndGet() == 0) {
                close(client);
                close(upstream);
            }
        };
        workers.run(() -> {
            try {
                pump(client, upstream);
            } finally {
                ended.run();
            }
        });
        try {
            pump(upstream, client);
        } finally {
            ended.run();
        }
    }

    /**
     * The connect does not block, so a unix socket whose accept queue is full answers EAGAIN instead
     * of making the caller wait without end. That relay is busy, not gone: try again for a short
     * while. A missing socket or a refusal is final at once.
     */
    private SocketChannel dial(Preamble preamble) throws IOException {
        long deadline = System.nanoTime() + BUSY_RELAY_WAIT.toNanos();
        for (long pause = 1; ; pause = Math.min(pause * 2, 50)) {
            try {
                return dialOnce(preamble);
            } catch (IOException e) {
                if (!busy(e) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    static boolean busy(IOException failure) {
        return String.valueOf(failure.getMessage()).contains("temporarily unavailable");
    }

    private SocketChannel dialOnce(Preamble preamble) throws IOException {
        SocketChannel upstream = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            upstream.configureBlocking(false);
            if (!upstream.connect(relay) && !upstream.finishConnect()) {
                throw new IOException("connect to " + relay.getPath() + " did not complete");
            }
            upstream.configureBlocking(true);
            ByteBuffer bytes = ByteBuffer.wrap(preamble.encode());
            while (bytes.hasRemaining()) {
                upstream.write(bytes);
            }
            return upstream;
        } catch (IOException | RuntimeException e) {
            close(upstream);
            throw e;
        }
    }

    private static void pump(SocketChannel from, SocketChannel to) {
        try {
            ByteBuffer buffer = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
            while (from.read(buffer) >= 0) {
                boolean full = !buffer.hasRemaining();
                buffer.flip();
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
                buffer = full && buffer.capacity() < LARGEST_BUFFER_BYTES
                        ? ByteBuffer.allocate(buffer.capacity() * 2)
                        : buffer.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // a reset or a write to a closed peer ends the whole connection, not just this direction
            close(from);
            close(to);
        }
    }

    /** Closes with a reset, so the client sees a refusal rather than an answer that happens to be empty. */
    private static void reset(SocketChannel client) {
        try {
            client.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException e) {
            // the close below still ends the connection
        }
        close(client);
    }

    private static void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing is left to release
        }
    }
}
