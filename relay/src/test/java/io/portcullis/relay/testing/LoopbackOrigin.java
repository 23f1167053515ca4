package io.portcullis.relay.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A TCP server on 127.0.0.2 that serves each connection with {@code serve} on a virtual thread. Not
 * on 127.0.0.1: the tests bind the spawn's own sockets there, in the same namespace, so a forward
 * to the origin's port must find that port free on 127.0.0.1.
 */
public final class LoopbackOrigin implements AutoCloseable {
    /** What the origin does with one accepted connection. */
    @FunctionalInterface
    public interface Serve {
        void serve(Socket socket) throws IOException;
    }

    public static final InetAddress HOST = host();

    private final ServerSocket server;
    private final ConcurrentLinkedQueue<Socket> accepted = new ConcurrentLinkedQueue<>();

    public LoopbackOrigin(Serve serve) throws IOException {
        this(serve, HOST);
    }

    /** On {@code host}: 127.0.0.1 for a server that no spawn socket of the test shares a port with. */
    public LoopbackOrigin(Serve serve, InetAddress host) throws IOException {
        server = new ServerSocket(0, 64, host);
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
    public static LoopbackOrigin echo() throws IOException {
        return echo(HOST);
    }

    public static LoopbackOrigin echo(InetAddress host) throws IOException {
        return new LoopbackOrigin(
                socket -> {
                    socket.getInputStream().transferTo(socket.getOutputStream());
                    socket.shutdownOutput();
                },
                host);
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    /** {@code 127.0.0.2:port}, as a target. */
    public String hostPort() {
        return "127.0.0.2:" + port();
    }

    public int port() {
        return server.getLocalPort();
    }

    public int acceptedCount() {
        return accepted.size();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : accepted) {
            socket.close();
        }
    }

    private static InetAddress host() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 2});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError("a 4-byte literal is always an address", e);
        }
    }
}
