package io.portcullis.relay.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An HTTP origin on 127.0.0.1 that records every byte each connection sent it (until the request
 * is complete by its own framing, the peer's end, or a second of silence) and then writes a
 * canned answer.
 */
public final class RecordingOrigin implements AutoCloseable {
    private final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
    private final LoopbackOrigin server;

    private RecordingOrigin(byte[] answer, InetAddress host) throws IOException {
        server = new LoopbackOrigin(
                socket -> {
                    socket.setSoTimeout(1000);
                    String request = readRequest(socket.getInputStream());
                    received.add(request);
                    if (answer.length > 0) {
                        socket.getOutputStream().write(answer);
                        socket.getOutputStream().flush();
                    } else {
                        sleepQuietly();
                    }
                },
                host);
    }

    /** Answers {@code answer} (raw bytes, ISO-8859-1) to each request; an empty answer never answers. */
    public static RecordingOrigin answering(String answer) throws IOException {
        return new RecordingOrigin(answer.getBytes(StandardCharsets.ISO_8859_1), LoopbackOrigin.HOST);
    }

    /** A gateway on 127.0.0.1, where a door dials it, answering {@code body}. */
    public static RecordingOrigin gateway(String body) throws IOException {
        return new RecordingOrigin(
                ("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\nX-Origin: yes\r\n\r\n" + body)
                        .getBytes(StandardCharsets.ISO_8859_1),
                InetAddress.getLoopbackAddress());
    }

    public static RecordingOrigin ok(String body) throws IOException {
        return answering("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\nX-Origin: yes\r\n\r\n" + body);
    }

    public int port() {
        return server.port();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /** Every request received so far, in order. */
    public List<String> received() {
        return List.copyOf(received);
    }

    public int connections() {
        return server.acceptedCount();
    }

    private static String readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = in.read()) != -1) {
                all.write(b);
                String text = all.toString(StandardCharsets.ISO_8859_1);
                int end = text.indexOf("\r\n\r\n");
                if (end >= 0 && complete(text, end + 4)) {
                    break;
                }
            }
        } catch (SocketTimeoutException e) {
            // Silence: record what came.
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    private static boolean complete(String text, int bodyStart) {
        String head = text.substring(0, bodyStart).toLowerCase(Locale.ROOT);
        int length = head.indexOf("\r\ncontent-length: ");
        if (length >= 0) {
            int from = length + "\r\ncontent-length: ".length();
            long n = Long.parseLong(
                    head.substring(from, head.indexOf("\r\n", from)).trim());
            return text.length() - bodyStart >= n;
        }
        if (head.contains("\r\ntransfer-encoding: chunked")) {
            return text.endsWith("\r\n0\r\n\r\n") || text.substring(bodyStart).equals("0\r\n\r\n");
        }
        return true;
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
