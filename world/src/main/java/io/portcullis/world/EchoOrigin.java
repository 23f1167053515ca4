package io.portcullis.world;

import java.io.IOException;
import java.net.Socket;

/** Sends back every byte it receives; when the peer half-closes, it finishes and half-closes too. */
final class EchoOrigin implements Origin {
    @Override
    public void serve(Socket socket) throws IOException {
        socket.getInputStream().transferTo(socket.getOutputStream());
        socket.shutdownOutput();
    }
}
