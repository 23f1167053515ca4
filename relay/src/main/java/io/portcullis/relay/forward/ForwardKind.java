package io.portcullis.relay.forward;

import io.netty.channel.ChannelHandler;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Objects;

/** Builds the handler of a forward connection. */
public final class ForwardKind {
    private final Tunnels tunnels;

    public ForwardKind(Tunnels tunnels) {
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
    }

    /** The handler for one connection to the forward on {@code port}, judged by {@code judge}. */
    public ChannelHandler handler(ForwardJudge judge, int port) {
        return new ForwardHandler(judge, port, tunnels);
    }
}
