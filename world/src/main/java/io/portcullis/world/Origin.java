package io.portcullis.world;

import java.io.IOException;
import java.net.Socket;

/** One kind of origin service: serves one accepted connection and returns; the caller closes it. */
interface Origin {
    void serve(Socket socket) throws IOException;
}
