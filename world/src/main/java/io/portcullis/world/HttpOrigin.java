package io.portcullis.world;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/1.1 origin that answers one request per connection with a JSON description of what it
 * saw (its own address, the peer, method, target), and records every byte the connection carried
 * to {@code <dir>/<record>.bin}, so a test can check exactly what reached the origin. The record's
 * name is in the {@code X-Origin-Record} header; the file appears, complete, once the connection ends.
 */
final class HttpOrigin implements Origin {
    private static final int MAX_HEAD = 64 * 1024;
    private static final int DRAIN_MILLIS = 1000;

    private final String name;
    private final Path dir;
    private final AtomicInteger sequence = new AtomicInteger();

    HttpOrigin(String name, Path dir) {
        this.name = name;
        this.dir = dir;
    }

    @Override
    public void serve(Socket socket) throws IOException {
        String record = name + "-" + socket.getLocalPort() + "-" + sequence.incrementAndGet();
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        InputStream in = new BufferedInputStream(new TeeInput(socket.getInputStream(), seen));
        try {
            Optional<String> head = readHead(in);
            if (head.isPresent()) {
                readBody(in, head.get());
                answer(socket, head.get(), record);
            }
            socket.setSoTimeout(DRAIN_MILLIS);
            in.transferTo(OutputStream.nullOutputStream());
        } catch (SocketTimeoutException e) {
            // The client kept the connection open after the answer: record what came so far.
        } finally {
            save(record, seen.toByteArray());
        }
    }

    private void answer(Socket socket, String head, String record) throws IOException {
        String[] requestLine = head.lines().findFirst().orElse("").split(" ", 3);
        String body = "{\"origin\":" + quote(name)
                + ",\"local\":" + quote(LiteralAddresses.text((InetSocketAddress) socket.getLocalSocketAddress()))
                + ",\"peer\":" + quote(LiteralAddresses.text((InetSocketAddress) socket.getRemoteSocketAddress()))
                + ",\"tls\":" + (socket instanceof SSLSocket)
                + ",\"method\":" + quote(requestLine[0])
                + ",\"target\":" + quote(requestLine.length > 1 ? requestLine[1] : "")
                + ",\"record\":" + quote(record) + "}\n";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                        + "\r\nConnection: close\r\nX-Origin-Record: " + record + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        if (!(socket instanceof SSLSocket)) {
            socket.shutdownOutput();
        }
    }

    /** The head, ended by its blank line; empty when the client ended first or sent too much. */
    private static Optional<String> readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last = -1;
        int beforeLast = -1;
        for (int b; (b = in.read()) >= 0; ) {
            head.write(b);
            if (b == '\n' && (last == '\n' || (last == '\r' && beforeLast == '\n'))) {
                return Optional.of(head.toString(StandardCharsets.ISO_8859_1).strip());
            }
            if (head.size() > MAX_HEAD) {
                return Optional.empty();
            }
            beforeLast = last;
            last = b;
        }
        return Optional.empty();
    }

    /** Reads the body as the head frames it (Content-Length or chunked), so the answer follows it. */
    private static void readBody(InputStream in, String head) throws IOException {
        String lower = head.toLowerCase(Locale.ROOT);
        if (lower.contains("\ntransfer-encoding:") && lower.contains("chunked")) {
            readChunked(in);
            return;
        }
        for (String line : lower.split("\r?\n")) {
            if (line.startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(
                        line.substring("content-length:".length()).strip()));
                return;
            }
        }
    }

    private static void readChunked(InputStream in) throws IOException {
        while (true) {
            Optional<String> sizeLine = readLine(in);
            if (sizeLine.isEmpty()) {
                return;
            }
            int size = Integer.parseInt(sizeLine.get().split(";", 2)[0].strip(), 16);
            if (size == 0) {
                while (sizeLine.isPresent() && !sizeLine.get().isEmpty()) {
                    sizeLine = readLine(in);
                }
                return;
            }
            in.readNBytes(size);
            readLine(in);
        }
    }

    /** One line; empty when the client ended first. */
    private static Optional<String> readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                return Optional.of(line.toString(StandardCharsets.ISO_8859_1).strip());
            }
            line.write(b);
        }
        return Optional.empty();
    }

    private void save(String record, byte[] bytes) throws IOException {
        Path partial = dir.resolve(record + ".partial");
        Files.write(partial, bytes);
        Files.move(partial, dir.resolve(record + ".bin"), StandardCopyOption.ATOMIC_MOVE);
    }

    static String quote(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"', '\\' -> out.append('\\').append(c);
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** Copies every byte read into {@code seen}. */
    private static final class TeeInput extends InputStream {
        private final InputStream in;
        private final ByteArrayOutputStream seen;

        TeeInput(InputStream in, ByteArrayOutputStream seen) {
            this.in = in;
            this.seen = seen;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                seen.write(b);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                seen.write(buffer, offset, n);
            }
            return n;
        }
    }
}
