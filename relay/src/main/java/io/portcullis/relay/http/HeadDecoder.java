package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads one HTTP/1.1 request head of at most {@code maxBytes} (request line, headers and the
 * blank line) within {@code timeoutMillis}, then passes a {@link Head} on, turns auto-read off and
 * removes itself. Too large: {@code 431}; too slow: {@code 408}; a head {@link HeadParser} refuses:
 * {@code 400}. The request line is checked as soon as it ends, so a line that no head may start
 * with (HTTP/0.9's {@code GET /path}, which no blank line follows) is {@code 400} at once rather
 * than {@code 408} later. A client that ends its input (a FIN) before its head is complete has
 * gone: the connection closes at once as {@code client-closed}, freeing its budget place, rather
 * than at the header timeout.
 */
public final class HeadDecoder extends ByteToMessageDecoder {
    private static final int NOT_FOUND = -1;

    private final int maxBytes;
    private final long timeoutMillis;
    private Future<?> timeout;
    private int scanned;
    private boolean lineChecked;
    private boolean refused;

    public HeadDecoder(int maxBytes, long timeoutMillis) {
        if (maxBytes < 16) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: >= 16)");
        }
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeoutMillis: " + timeoutMillis + " (expected: >= 1)");
        }
        this.maxBytes = maxBytes;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor()
                .schedule(() -> refuse(ctx, DenyCode.HEADER_TIMEOUT), timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        timeout.cancel(false);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int end = scan(in);
        if (end == NOT_FOUND) {
            if (in.readableBytes() >= maxBytes) {
                refuse(ctx, DenyCode.HEADER_TOO_LARGE);
            }
            return;
        }
        if (end < 0) {
            refuse(ctx, DenyCode.BAD_REQUEST);
            return;
        }
        RequestHead head;
        try {
            head = HeadParser.parse(in.readCharSequence(end - in.readerIndex(), StandardCharsets.ISO_8859_1)
                    .toString());
        } catch (IllegalArgumentException e) {
            refuse(ctx, DenyCode.BAD_REQUEST);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        out.add(new Head(head, in.readRetainedSlice(in.readableBytes())));
        ctx.pipeline().remove(this);
    }

    /** The input ended: what was buffered is decoded first, and a head still incomplete never will be. */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (!ctx.isRemoved() && !refused && out.isEmpty()) {
            refused = true;
            timeout.cancel(false);
            ConnectionRecord.of(ctx.channel()).fail(DenyCode.CLIENT_CLOSED);
            ctx.close();
        }
    }

    /**
     * The index just past the blank line ending the head, {@link #NOT_FOUND} while incomplete, or
     * {@code -2} when a byte no head may hold was seen. Resumes where the last call stopped.
     */
    private int scan(ByteBuf in) {
        int limit = in.readerIndex() + Math.min(in.readableBytes(), maxBytes);
        for (int i = in.readerIndex() + scanned; i < limit; i++) {
            byte b = in.getByte(i);
            if (b == 0) {
                return -2;
            }
            if (b == '\n') {
                if (i == in.readerIndex() || in.getByte(i - 1) != '\r') {
                    return -2;
                }
                if (!lineChecked) {
                    lineChecked = true;
                    if (!isRequestLine(
                            in.toString(in.readerIndex(), i - 1 - in.readerIndex(), StandardCharsets.ISO_8859_1))) {
                        return -2;
                    }
                }
                if (i - 3 >= in.readerIndex() && in.getByte(i - 2) == '\n') {
                    return i + 1;
                }
            } else if (i > in.readerIndex() && in.getByte(i - 1) == '\r') {
                return -2;
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

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionRecord.closeOnFailure(ctx, cause);
    }

    private void refuse(ChannelHandlerContext ctx, DenyCode code) {
        refused = true;
        timeout.cancel(false);
        ConnectionRecord.of(ctx.channel()).deny(code);
        ctx.channel().config().setAutoRead(false);
        Replies.refuse(ctx.channel(), code);
    }
}
