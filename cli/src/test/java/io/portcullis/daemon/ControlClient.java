package io.portcullis.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** A plain HTTP/1.1 client of the daemon's control socket: one request per connection. */
final class ControlClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ControlClient() {}

    /** One answer: status, headers (lowercase names) and body. */
    record Answer(int status, Map<String, String> headers, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    static Answer call(Path socket, String method, String path) throws IOException {
        return call(socket, method, path, null);
    }

    static Answer call(Path socket, String method, String path, String body) throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: portcullis\r\nConnection: close\r\n"
                + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + content.length + "\r\n")
                + "\r\n";
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
            request.writeBytes(content);
            ByteBuffer buffer = ByteBuffer.wrap(request.toByteArray());
            try {
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            } catch (IOException answeredEarly) {
                // The daemon may answer (413) and close before the whole body is written.
            }
            InputStream in = Channels.newInputStream(channel);
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static Answer parse(String response) throws IOException {
        int end = response.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no response head in " + response.length() + " bytes: " + response);
        }
        String[] lines = response.substring(0, end).split("\r\n");
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers, response.substring(end + 4));
    }
}
