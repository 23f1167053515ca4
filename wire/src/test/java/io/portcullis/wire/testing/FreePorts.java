package io.portcullis.wire.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Loopback ports the kernel just handed out (for tests of every module), free on 127.0.0.1 at the time of asking. */
public final class FreePorts {

    private FreePorts() {}

    public static List<Integer> take(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                held.add(socket);
                socket.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // the port is released either way
                }
            }
        }
    }
}
