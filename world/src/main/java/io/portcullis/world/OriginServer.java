package io.portcullis.world;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import javax.net.ServerSocketFactory;

/** Accepts on one port, all addresses of its namespace, each connection on a virtual thread of its own. */
final class OriginServer {
    private static final int BACKLOG = 512;

    private OriginServer() {}

    static ServerSocket listen(ServerSocketFactory factory, int port) throws IOException {
        ServerSocket server = factory.createServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(port), BACKLOG);
        return server;
    }

    static void acceptForever(ServerSocket server, Origin origin) {
        Thread.ofVirtual().name("accept-" + server.getLocalPort()).start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    Thread.ofVirtual().start(() -> serve(socket, origin));
                } catch (IOException e) {
                    System.err.println("origin: accept on " + server.getLocalPort() + " failed: " + e);
                }
            }
        });
    }

    private static void serve(Socket socket, Origin origin) {
        try (socket) {
            origin.serve(socket);
        } catch (IOException | RuntimeException e) {
            System.err.println("origin: connection from " + socket.getRemoteSocketAddress() + " to port "
                    + socket.getLocalPort() + " failed: " + e);
        }
    }
}
