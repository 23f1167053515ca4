package io.portcullis.relay.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP origin on 127.0.0.2 that reads each connection as a keep-alive server would, strictly by
 * the framing each request gives (Content-Length, or chunked when {@code Transfer-Encoding} names
 * it), answers {@code 200} once the first request is whole, and reads on until the peer's end. What
 * it recorded for each connection is every request it parsed and the bytes that made no whole
 * request: a second request, or anything else after the first, shows there.
 */
public final class FramingOrigin implements AutoCloseable {
    /** What one connection carried: the whole requests, in order, and what followed them. */
    public record Connection(List<Request> requests, String rest) {}

    /** One request as the origin parsed it: its head (without the blank line) and its body, unchunked. */
    public record Request(String head, String body) {}

    private static final String ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    private final BlockingQueue<Connection> connections = new LinkedBlockingQueue<>();
    private final LoopbackOrigin server;

    public FramingOrigin() throws IOException {
        server = new LoopbackOrigin(socket -> {
            socket.setSoTimeout(5_000);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            boolean answered = false;
            byte[] buffer = new byte[4096];
            try {
                for (int n; (n = in.read(buffer)) != -1; ) {
                    all.write(buffer, 0, n);
                    if (!answered
                            && !parse(all.toString(StandardCharsets.ISO_8859_1))
                                    .requests()
                                    .isEmpty()) {
                        answered = true;
                        socket.getOutputStream().write(ANSWER.getBytes(StandardCharsets.US_ASCII));
                    }
                }
            } catch (SocketTimeoutException e) {
                // The relay kept the connection open: record what came.
            } finally {
                connections.add(parse(all.toString(StandardCharsets.ISO_8859_1)));
            }
        });
    }

    public int port() {
        return server.port();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /** The next connection that ended, or empty when none did within {@code millis}. */
    public Optional<Connection> next(long millis) throws InterruptedException {
        return Optional.ofNullable(connections.poll(millis, TimeUnit.MILLISECONDS));
    }

    /** Every whole request in {@code stream}, as a strict keep-alive server reads them, and the rest. */
    static Connection parse(String stream) {
        List<Request> requests = new ArrayList<>();
        int at = 0;
        while (true) {
            int end = stream.indexOf("\r\n\r\n", at);
            if (end < 0) {
                break;
            }
            String head = stream.substring(at, end);
            Optional<Body> body = body(stream, end + 4, head.toLowerCase(Locale.ROOT));
            if (body.isEmpty()) {
                break;
            }
            requests.add(new Request(head, body.get().text()));
            at = body.get().end();
        }
        return new Connection(List.copyOf(requests), stream.substring(at));
    }

    private record Body(String text, int end) {}

    /** The body that starts at {@code from}, or empty when it is not whole (or not a body at all). */
    private static Optional<Body> body(String stream, int from, String head) {
        try {
            if (field(head, "transfer-encoding")
                    .filter(coding -> coding.contains("chunked"))
                    .isPresent()) {
                return chunked(stream, from);
            }
            return length(
                    stream,
                    from,
                    field(head, "content-length").map(Integer::parseInt).orElse(0));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<Body> length(String stream, int from, int n) {
        return stream.length() - from < n
                ? Optional.empty()
                : Optional.of(new Body(stream.substring(from, from + n), from + n));
    }

    private static Optional<Body> chunked(String stream, int from) {
        StringBuilder text = new StringBuilder();
        int at = from;
        while (true) {
            int line = stream.indexOf("\r\n", at);
            if (line < 0) {
                return Optional.empty();
            }
            int size = Integer.parseInt(stream.substring(at, line), 16);
            at = line + 2;
            if (size == 0) {
                return stream.startsWith("\r\n", at)
                        ? Optional.of(new Body(text.toString(), at + 2))
                        : Optional.empty();
            }
            if (stream.length() < at + size + 2) {
                return Optional.empty();
            }
            text.append(stream, at, at + size);
            at += size + 2;
        }
    }

    private static Optional<String> field(String head, String name) {
        for (String line : head.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return Optional.of(line.substring(name.length() + 1).strip());
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
