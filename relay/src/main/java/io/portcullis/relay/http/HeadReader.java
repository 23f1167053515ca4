package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.checks.Checks;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.record.ConnectionRecord;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Reads one HTTP/1.1 request head of at most {@code maxBytes} (request line, headers and the blank
 * line) within {@code timeoutMillis}, for the handler of a proxy or door connection, which feeds
 * it what the client sends. Too large: {@code 431}; too slow: {@code 408}; a head {@link
 * HeadParser} refuses: {@code 400}; each answered here ({@link Replies}) with the record settled.
 * The request line is checked as soon as it ends, so a line that no head may start with (HTTP/0.9's
 * {@code GET /path}, which no blank line follows) is {@code 400} at once rather than {@code 408}
 * later. A client that ends its input (a FIN) before its head is complete has gone: the connection
 * closes at once as {@code client-closed}, freeing its budget place, rather than at the header
 * timeout. Confined to the channel's event loop.
 */
public final class HeadReader {
    private static final int NOT_FOUND = -1;
    private static final int BROKEN = -2;

    /** What the bytes so far come to. */
    public sealed interface Read permits More, Complete, Refused {}

    /** The head is not complete yet. */
    public record More() implements Read {}

    /**
     * The head, and the bytes that followed it (a CONNECT's first tunnel bytes, or the start of a
     * body), possibly none; the caller releases {@code after}.
     */
    public record Complete(RequestHead head, ByteBuf after) implements Read {
        public Complete {
            Objects.requireNonNull(head, "head");
            Objects.requireNonNull(after, "after");
        }
    }

    /** Refused: the answer is written, the record settled, and the connection closing. */
    public record Refused(DenyCode code) implements Read {}

    private static final More MORE = new More();

    private final Channel channel;
    private final int maxBytes;
    private final Future<?> timeout;
    private @Nullable ByteBuf buffer;
    private int scanned;
    private boolean lineChecked;
    private boolean done;

    /** Starts reading {@code channel}'s head: the timeout runs from now. On the channel's event loop. */
    public HeadReader(Channel channel, int maxBytes, long timeoutMillis) {
        this.channel = Objects.requireNonNull(channel, "channel");
        if (maxBytes < 16) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: >= 16)");
        }
        Checks.positive("timeoutMillis", timeoutMillis);
        this.maxBytes = maxBytes;
        this.timeout = channel.eventLoop()
                .schedule(() -> refuse(DenyCode.HEADER_TIMEOUT), timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether a head was read or refused: nothing more is read here. */
    public boolean done() {
        return done;
    }

    /** Takes {@code in} (released here) and says what the bytes so far come to. */
    public Read read(ByteBuf in) {
        if (done) {
            in.release();
            return MORE;
        }
        buffer = buffer == null ? in : cumulate(buffer, in);
        int end = scan(buffer);
        if (end == NOT_FOUND) {
            return buffer.readableBytes() >= maxBytes ? refuse(DenyCode.HEADER_TOO_LARGE) : MORE;
        }
        if (end == BROKEN) {
            return refuse(DenyCode.BAD_REQUEST);
        }
        RequestHead head;
        try {
            head = HeadParser.parse(buffer.readCharSequence(end - buffer.readerIndex(), StandardCharsets.ISO_8859_1)
                    .toString());
        } catch (IllegalArgumentException e) {
            return refuse(DenyCode.BAD_REQUEST);
        }
        ByteBuf after = buffer;
        buffer = null;
        finish();
        return new Complete(head, after);
    }

    /** The client ended its input: a head still incomplete never will be ({@code client-closed}). */
    public void inputEnded() {
        if (done) {
            return;
        }
        finish();
        ConnectionRecord.of(channel).fail(DenyCode.CLIENT_CLOSED);
        channel.close();
    }

    /** Lets go of what is buffered and the timeout; for a channel that closed. */
    public void release() {
        finish();
    }

    private Refused refuse(DenyCode code) {
        if (done) {
            return new Refused(code);
        }
        finish();
        ConnectionRecord.of(channel).deny(code);
        channel.config().setAutoRead(false);
        Replies.refuse(channel, code);
        return new Refused(code);
    }

    private void finish() {
        done = true;
        timeout.cancel(false);
        if (buffer != null) {
            buffer.release();
            buffer = null;
        }
    }

    /** {@code head} followed by {@code in}, in one buffer: a head split over several reads. */
    private static ByteBuf cumulate(ByteBuf head, ByteBuf in) {
        if (head instanceof CompositeByteBuf composite) {
            return composite.addComponent(true, in);
        }
        return head.alloc().compositeBuffer().addComponent(true, head).addComponent(true, in);
    }

    /**
     * The index just past the blank line ending the head, {@link #NOT_FOUND} while incomplete, or
     * {@link #BROKEN} when a byte no head may hold was seen. Resumes where the last call stopped.
     */
    private int scan(ByteBuf in) {
        int limit = in.readerIndex() + Math.min(in.readableBytes(), maxBytes);
        for (int i = in.readerIndex() + scanned; i < limit; i++) {
            byte b = in.getByte(i);
            if (b == 0) {
                return BROKEN;
            }
            if (b == '\n') {
                if (i == in.readerIndex() || in.getByte(i - 1) != '\r') {
                    return BROKEN;
                }
                if (!lineChecked) {
                    lineChecked = true;
                    if (!isRequestLine(
                            in.toString(in.readerIndex(), i - 1 - in.readerIndex(), StandardCharsets.ISO_8859_1))) {
                        return BROKEN;
                    }
                }
                if (i - 3 >= in.readerIndex() && in.getByte(i - 2) == '\n') {
                    return i + 1;
                }
            } else if (i > in.readerIndex() && in.getByte(i - 1) == '\r') {
                return BROKEN;
            }
            scanned = i - in.readerIndex() + 1;
        }
        return NOT_FOUND;
    }

    private static boolean isRequestLine(String line) {
        try {
            HeadParser.checkRequestLine(line);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
