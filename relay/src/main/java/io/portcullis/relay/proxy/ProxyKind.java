package io.portcullis.relay.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.tunnel.Tunnels;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** The proxy kind of a configuration generation: its limits, and the handler of each connection. */
public final class ProxyKind {
    /** {@code 200 Connection established}, written as a duplicate of one buffer that is never freed. */
    static final ByteBuf ESTABLISHED = Unpooled.unreleasableBuffer(Unpooled.directBuffer(Replies.ESTABLISHED.length())
            .writeBytes(Replies.ESTABLISHED.getBytes(StandardCharsets.US_ASCII))
            .asReadOnly());

    final int headerBytes;
    final long headerTimeoutMillis;
    final Tunnels tunnels;
    final Exchange.Limits limits;

    /**
     * @param headerBytes the largest request head (SPEC R16, 8 KiB by default)
     * @param headerTimeoutMillis the time to a complete request head
     * @param limits the limits of a plain HTTP request and its answer
     */
    public ProxyKind(int headerBytes, long headerTimeoutMillis, Tunnels tunnels, Exchange.Limits limits) {
        this.headerBytes = headerBytes;
        this.headerTimeoutMillis = headerTimeoutMillis;
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
        this.limits = Objects.requireNonNull(limits, "limits");
        if (headerBytes < 16 || headerTimeoutMillis < 1) {
            throw new IllegalArgumentException("headerBytes/headerTimeoutMillis: " + headerBytes + "/"
                    + headerTimeoutMillis + " (expected: >= 16 / >= 1)");
        }
    }

    /** The handler of one proxy connection of the spawn that {@code judge} decides for. */
    public ChannelHandler handler(SpawnJudge judge) {
        return new ProxyHandler(this, judge);
    }

    /**
     * The answer for a connection over a budget: {@code 503} with {@code code}, then a close,
     * lingering when {@code linger} (a place to linger was taken), else at once.
     */
    public static void refuse(Channel channel, DenyCode code, boolean linger) {
        if (linger) {
            Replies.refuse(channel, code);
        } else {
            Replies.refuseAtOnce(channel, code);
        }
    }
}
