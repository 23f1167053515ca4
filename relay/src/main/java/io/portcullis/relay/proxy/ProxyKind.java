package io.portcullis.relay.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.portcullis.relay.decide.ConnectionJudge;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.http.HeadDecoder;
import io.portcullis.relay.http.Replies;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Objects;

/** Builds the pipeline of a proxy connection: {@code HeadDecoder} then {@code ConnectHandler}. */
public final class ProxyKind {
    private final int headerBytes;
    private final long headerTimeoutMillis;
    private final Tunnels tunnels;
    private final Exchange.Limits limits;

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

    /** The handler for one proxy connection of the spawn that {@code judge} decides for. */
    public ChannelHandler handler(ConnectionJudge judge) {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline().addLast("head", new HeadDecoder(headerBytes, headerTimeoutMillis));
                channel.pipeline().addLast("connect", new ConnectHandler(judge, tunnels, limits));
            }
        };
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
