package io.portcullis.relay.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/** A client in the spawn's namespace: a TCP connection to one of the spawn's handed-over sockets. */
public final class SpawnClient implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;

    private SpawnClient(SocketChannel channel) {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
    }

    /** Connects to 127.0.0.1:{@code port} and writes nothing yet. */
    public static SpawnClient connect(int port) throws IOException {
        return new SpawnClient(SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)));
    }

    public static SpawnClient open(int port) throws IOException {
        return connect(port);
    }

    /** Connects and writes {@code first} in one write, as a fast client would. */
    public static SpawnClient open(int port, String first) throws IOException {
        SpawnClient client = connect(port);
        if (!first.isEmpty()) {
            client.write(first.getBytes(StandardCharsets.ISO_8859_1));
        }
        return client;
    }

    public void write(byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    public void write(String text) throws IOException {
        write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads up to and including the blank line of a response head. */
    public String readHead() throws IOException {
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

    public byte[] readExactly(int n) throws IOException {
        return in.readNBytes(n);
    }

    /**
     * Everything up to the end of the relay's output. A socket closed with unread bytes resets its
     * peer, which ends the output here too.
     */
    public byte[] readToEnd() throws IOException {
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

    public InputStream input() {
        return in;
    }

    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
