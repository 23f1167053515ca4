package io.portcullis.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.wire.Posix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The JSON messages of an upgrade's conversation (SPEC R44) on a raw control connection: each a
 * 4-byte big-endian length, then that many bytes of one JSON object. Read exactly, never a byte
 * past a message, so that a hand-over message (SCM_RIGHTS) may follow it on the same connection.
 */
final class Frames {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The largest message: a spawn's policy is at most {@link Daemon#MAX_BODY_BYTES}, with room for the rest. */
    static final int MAX_BYTES = 2 * Daemon.MAX_BODY_BYTES;

    private Frames() {}

    /** Sends {@code message} whole on the blocking socket {@code fd}. */
    static void write(int fd, JsonNode message) throws IOException {
        byte[] body = JSON.writeValueAsBytes(message);
        if (body.length > MAX_BYTES) {
            throw new IOException("a message of " + body.length + " bytes (expected: at most " + MAX_BYTES + ")");
        }
        ByteBuffer framed =
                ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body);
        Posix.sendAll(fd, framed.array(), 0);
    }

    /** The next message on {@code fd}, within {@code timeoutMillis}; a descriptor that comes with it is closed and refused. */
    static JsonNode read(int fd, int timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        int length = ByteBuffer.wrap(exactly(fd, 4, deadline)).getInt();
        if (length < 2 || length > MAX_BYTES) {
            throw new IOException("a message of " + length + " bytes (expected: 2-" + MAX_BYTES + ")");
        }
        JsonNode message = JSON.readTree(exactly(fd, length, deadline));
        if (!message.isObject()) {
            throw new IOException("a message that is not a JSON object");
        }
        return message;
    }

    /** Reads exactly {@code count} bytes before {@code deadline} ({@link System#nanoTime()}). */
    static byte[] exactly(int fd, int count, long deadline) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(count);
        while (bytes.size() < count) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new IOException("the other daemon sent " + bytes.size() + " of " + count + " bytes in time");
            }
            if (!Posix.awaitReadable(fd, (int) Math.min(left, Integer.MAX_VALUE))) {
                continue;
            }
            var got = Posix.receive(fd, count - bytes.size());
            if (got.isEmpty()) {
                continue;
            }
            if (got.get().fds().length > 0) {
                Posix.closeQuietly(got.get().fds());
                throw new IOException("descriptors came with a message (expected: with a hand-over only)");
            }
            if (got.get().data().length == 0) {
                throw new IOException("the other daemon closed the connection"
                        + (bytes.size() > 0 ? " after " + bytes.size() + " of " + count + " bytes" : ""));
            }
            bytes.writeBytes(got.get().data());
        }
        return bytes.toByteArray();
    }

    /** Reads an HTTP response head, up to and with its blank line, one byte at a time: nothing past it. */
    static String head(int fd, int timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (head.size() < 8192) {
            head.writeBytes(exactly(fd, 1, deadline));
            byte[] so = head.toByteArray();
            if (so.length >= 4 && Arrays.equals(so, so.length - 4, so.length, end, 0, 4)) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
        throw new IOException("an answer head of more than 8192 bytes");
    }
}
