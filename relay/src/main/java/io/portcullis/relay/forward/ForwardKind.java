package io.portcullis.relay.forward;

import io.netty.channel.ChannelHandler;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Objects;

/** The forward kind of a configuration generation: the handler of each forward or named entry's connection. */
public final class ForwardKind {
    private final Tunnels tunnels;

    public ForwardKind(Tunnels tunnels) {
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
    }

    /**
     * The handler for one connection to a forward or a named entry, whose {@code request} (the
     * forward's port, or the named entry's target) {@code judge} decides.
     */
    public ChannelHandler handler(SpawnJudge judge, Request request) {
        return new ForwardHandler(judge, request, tunnels);
    }
}
