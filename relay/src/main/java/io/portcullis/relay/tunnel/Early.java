package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;

/**
 * What a client sends before its tunnel or exchange starts, kept in order, and whether it ended its
 * input meanwhile. Auto-read is off while a connection is judged and dialed, but a client's FIN
 * makes the transport read everything the kernel holds at once (epoll's EPOLLRDHUP), whatever
 * auto-read says: those bytes (the rest of a body, a ClientHello) must not be dropped. At most
 * {@code limit} bytes are kept; past that the rest is dropped and {@link #overflowed()} says so.
 * Confined to the client's event loop.
 */
public final class Early {
    private final long limit;
    /** What is kept: one buffer, or a composite once a second arrives; empty once taken or released. */
    private ByteBuf bytes;

    private boolean taken;
    private boolean ended;
    private boolean overflowed;

    /** Starts with {@code first} (the bytes read with a request head, possibly none), taken here. */
    public Early(ByteBuf first, long limit) {
        this.limit = limit;
        this.bytes = first;
    }

    /** Keeps {@code msg} (a buffer; anything else is dropped); it is taken here. */
    public void add(Object msg) {
        if (!(msg instanceof ByteBuf read) || overflowed || taken) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (bytes.readableBytes() + (long) read.readableBytes() > limit) {
            overflowed = true;
            read.release();
            return;
        }
        if (!bytes.isReadable()) {
            bytes.release();
            bytes = read;
        } else if (bytes instanceof CompositeByteBuf composite) {
            composite.addComponent(true, read);
        } else {
            bytes = read.alloc().compositeBuffer().addComponent(true, bytes).addComponent(true, read);
        }
    }

    /** The client ended its input. */
    public void end() {
        ended = true;
    }

    /** Everything kept, in order; the caller releases it. Once. */
    public ByteBuf take() {
        ByteBuf all = taken ? Unpooled.EMPTY_BUFFER : bytes;
        taken = true;
        bytes = Unpooled.EMPTY_BUFFER;
        return all;
    }

    /** Whether the client ended its input before the bytes were taken. */
    public boolean ended() {
        return ended;
    }

    /** Whether more than the limit arrived, so that what is kept is not the whole of it. */
    public boolean overflowed() {
        return overflowed;
    }

    /** Drops what is kept; for a connection that ends before its bytes were taken. */
    public void release() {
        if (!taken) {
            taken = true;
            bytes.release();
            bytes = Unpooled.EMPTY_BUFFER;
        }
    }
}
