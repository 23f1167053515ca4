package io.portcullis.relay;

import io.portcullis.entry.wire.Preamble;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A client of a spawn socket, as the entry would be: the preamble, then the client's bytes. */
final class SpawnClient implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;

    private SpawnClient(SocketChannel channel) {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
    }

    /** Connects and writes nothing yet. */
    static SpawnClient connect(Path socket) throws IOException {
        return new SpawnClient(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
    }

    static SpawnClient open(Path socket, Preamble.Kind kind, int port) throws IOException {
        return open(socket, kind, port, "");
    }

    /** Connects and writes the preamble and {@code first} in one write, as a fast client would. */
    static SpawnClient open(Path socket, Preamble.Kind kind, int port, String first) throws IOException {
        SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        SpawnClient client = new SpawnClient(channel);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(new Preamble(kind, port).encode());
        bytes.writeBytes(first.getBytes(StandardCharsets.ISO_8859_1));
        client.write(bytes.toByteArray());
        return client;
    }

    void write(byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    void write(String text) throws IOException {
        write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads up to and including the blank line of a response head. */
    String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    byte[] readExactly(int n) throws IOException {
        return in.readNBytes(n);
    }

    /**
     * Everything up to the end of the relay's output. A unix socket closed with unread bytes
     * resets its peer, which ends the output here too.
     */
    byte[] readToEnd() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) != -1; ) {
                all.write(buffer, 0, n);
            }
        } catch (SocketException e) {
            if (!"Connection reset".equals(e.getMessage())) {
                throw e;
            }
        }
        return all.toByteArray();
    }

    InputStream input() {
        return in;
    }

    void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
