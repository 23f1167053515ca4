package io.portcullis.entry;

import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A running entry: its listeners, one accepting thread per listening socket, and one worker thread
 * per direction of every connection.
 */
final class Entry implements AutoCloseable {

    private final EntryOptions options;
    private final Listeners listeners;
    private final Workers workers;
    private final Bridge bridge;
    private final PrintStream log;
    private final List<Thread> acceptors = new ArrayList<>();

    private Entry(EntryOptions options, Listeners listeners, PrintStream log) {
        this.options = options;
        this.listeners = listeners;
        this.workers = new Workers();
        this.bridge = new Bridge(options.relay(), workers, log);
        this.log = log;
    }

    /** Binds every listener and starts accepting; nothing is bound when this throws. */
    static Entry start(EntryOptions options, PrintStream log) throws Listeners.BindFailure {
        Entry entry = new Entry(options, Listeners.bind(options.endpoints()), log);
        for (Listeners.Listener listener : entry.listeners.all()) {
            entry.acceptors.add(Thread.ofPlatform()
                    .daemon(true)
                    .name("accept "
                            + Listeners.hostPort(
                                    listener.address(), listener.endpoint().port()))
                    .start(() -> entry.accept(listener)));
        }
        return entry;
    }

    Readiness readiness() {
        return new Readiness(
                options.effectiveProxyPort(),
                options.forwards(),
                options.door(),
                listeners.addresses().stream().map(Listeners::text).toList());
    }

    /** Blocks until every listener is closed. */
    void await() throws InterruptedException {
        for (Thread acceptor : acceptors) {
            acceptor.join();
        }
    }

    @Override
    public void close() {
        listeners.close();
    }

    private void accept(Listeners.Listener listener) {
        while (listener.channel().isOpen()) {
            SocketChannel client;
            try {
                client = listener.channel().accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                // out of descriptors or memory: back off instead of spinning, keep the listener
                log.println("portcullis entry: accept on " + listener.endpoint() + " failed: " + e.getMessage());
                pause();
                continue;
            }
            workers.run(() -> {
                noDelay(client);
                bridge.carry(client, listener.endpoint().preamble());
            });
        }
    }

    private static void noDelay(SocketChannel client) {
        try {
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            // only latency suffers; the bytes still flow
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
