package io.portcullis.relay.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.util.Objects;

/**
 * A request line whose head arrived complete, and the bytes that followed the head (for a
 * CONNECT, the client's first tunnel bytes).
 */
final class Head extends DefaultByteBufHolder {
    final String method;
    final String target;
    final String version;

    Head(String method, String target, String version, ByteBuf after) {
        super(after);
        this.method = Objects.requireNonNull(method, "method");
        this.target = Objects.requireNonNull(target, "target");
        this.version = Objects.requireNonNull(version, "version");
    }
}
