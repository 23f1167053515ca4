package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.util.Objects;

/**
 * A request head that arrived complete and passed {@link HeadParser}, and the bytes that followed
 * it (a CONNECT's first tunnel bytes, or the start of a body).
 */
public final class Head extends DefaultByteBufHolder {
    private final RequestHead head;

    Head(RequestHead head, ByteBuf after) {
        super(after);
        this.head = Objects.requireNonNull(head, "head");
    }

    public RequestHead head() {
        return head;
    }
}
