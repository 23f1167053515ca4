package io.portcullis.relay;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A TCP server on 127.0.0.1 that serves each connection with {@code serve} on a virtual thread. */
final class LoopbackOrigin implements AutoCloseable {
    /** What the origin does with one accepted connection. */
    @FunctionalInterface
    interface Serve {
        void serve(Socket socket) throws IOException;
    }

    private final ServerSocket server;
    private final ConcurrentLinkedQueue<Socket> accepted = new ConcurrentLinkedQueue<>();

    LoopbackOrigin(Serve serve) throws IOException {
        server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    accepted.add(socket);
                    Thread.ofVirtual().start(() -> {
                        try (socket) {
                            serve.serve(socket);
                        } catch (IOException e) {
                            // The test asserts on what the client saw.
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    /** Echoes every byte until the client's end of input, then ends its own output. */
    static LoopbackOrigin echo() throws IOException {
        return new LoopbackOrigin(socket -> {
            socket.getInputStream().transferTo(socket.getOutputStream());
            socket.shutdownOutput();
        });
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    int port() {
        return server.getLocalPort();
    }

    int acceptedCount() {
        return accepted.size();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : accepted) {
            socket.close();
        }
    }
}
