package io.portcullis.relay.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.portcullis.entry.wire.Preamble;

/** Builds the handler that serves a connection once its preamble named a kind and port of this spawn. */
@FunctionalInterface
public interface KindRouter {

    ChannelHandler route(Channel channel, Preamble preamble);
}
