package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.portcullis.relay.policy.DenyCode;
import java.util.List;

/**
 * Reads the client's body by its checked {@link Framing} and passes it on as {@code HttpContent},
 * then one {@link LastHttpContent}; whatever follows (a pipelined request) is read and dropped, so
 * it never reaches upstream. Chunks are strict: a size of 1-8 hex digits and CRLF, no extension,
 * data and CRLF, and a last chunk without trailer fields. A malformed chunk passes on a
 * {@link Failure} with {@code bad-request}; more than {@code limit} bytes of body, one with
 * {@code body-too-large}.
 */
final class BodyDecoder extends ByteToMessageDecoder {
    private static final int MAX_SIZE_DIGITS = 8;

    /** The body cannot be passed on: the exchange answers with {@code code}. */
    record Failure(DenyCode code) {}

    private enum State {
        LENGTH,
        SIZE,
        DATA,
        DATA_END,
        TRAILER,
        DONE
    }

    private final long limit;
    private State state;
    private long remaining;
    private long total;

    BodyDecoder(Framing framing, long limit) {
        this.limit = limit;
        switch (framing) {
            case Framing.Length length
            when length.bytes() > 0 -> {
                state = State.LENGTH;
                remaining = length.bytes();
            }
            case Framing.Chunked chunked -> state = State.SIZE;
            default -> state = State.DONE;
        }
    }

    /** Whether the whole body was passed on (or there was none). */
    boolean done() {
        return state == State.DONE;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable() && state != State.DONE && out.isEmpty()) {
            if (!step(in, out)) {
                break;
            }
        }
        if (state == State.DONE) {
            in.skipBytes(in.readableBytes());
        }
    }

    /** One step of the state machine; false when it needs more bytes. */
    private boolean step(ByteBuf in, List<Object> out) {
        switch (state) {
            case LENGTH, DATA -> {
                int n = (int) Math.min(in.readableBytes(), remaining);
                remaining -= n;
                out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
                if (remaining == 0) {
                    if (state == State.LENGTH) {
                        finish(out);
                    } else {
                        state = State.DATA_END;
                    }
                }
                return true;
            }
            case SIZE -> {
                return size(in, out);
            }
            case DATA_END, TRAILER -> {
                if (in.readableBytes() < 2) {
                    return false;
                }
                if (in.readByte() != '\r' || in.readByte() != '\n') {
                    return fail(out, DenyCode.BAD_REQUEST);
                }
                if (state == State.TRAILER) {
                    finish(out);
                } else {
                    state = State.SIZE;
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private boolean size(ByteBuf in, List<Object> out) {
        int end = in.indexOf(
                in.readerIndex(), in.readerIndex() + Math.min(in.readableBytes(), MAX_SIZE_DIGITS + 2), (byte) '\n');
        if (end < 0) {
            return in.readableBytes() >= MAX_SIZE_DIGITS + 2 ? fail(out, DenyCode.BAD_REQUEST) : false;
        }
        int digits = end - 1 - in.readerIndex();
        if (digits < 1 || in.getByte(end - 1) != '\r') {
            return fail(out, DenyCode.BAD_REQUEST);
        }
        long size = 0;
        for (int i = 0; i < digits; i++) {
            int value = Character.digit(in.getByte(in.readerIndex() + i), 16);
            if (value < 0) {
                return fail(out, DenyCode.BAD_REQUEST);
            }
            size = size * 16 + value;
        }
        in.readerIndex(end + 1);
        total += size;
        if (total > limit) {
            return fail(out, DenyCode.BODY_TOO_LARGE);
        }
        remaining = size;
        state = size == 0 ? State.TRAILER : State.DATA;
        return true;
    }

    private void finish(List<Object> out) {
        state = State.DONE;
        out.add(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    private boolean fail(List<Object> out, DenyCode code) {
        state = State.DONE;
        out.add(new Failure(code));
        return false;
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, in, out);
        if (state != State.DONE && out.isEmpty()) {
            fail(out, DenyCode.BAD_REQUEST);
        }
    }
}
