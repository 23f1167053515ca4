package io.portcullis.relay;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.DuplexChannelConfig;
import io.netty.util.AttributeKey;
import io.portcullis.entry.wire.Preamble;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.tunnel.Transport;
import io.portcullis.relay.wire.KindRouter;
import io.portcullis.relay.wire.PreambleDecoder;
import io.portcullis.relay.wire.SpawnPorts;
import java.io.IOException;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up each connection accepted on one spawn's socket: the peer check (SO_PEERCRED) before a
 * byte is read, the decision record, the connection budgets, then the preamble, which routes to
 * the kind's handler, or to a refusal when a budget was full.
 */
final class SpawnInitializer extends ChannelInitializer<Channel> implements KindRouter {
    private static final Logger log = LoggerFactory.getLogger(SpawnInitializer.class);
    private static final AttributeKey<DenyCode> OVER_BUDGET =
            AttributeKey.valueOf(SpawnInitializer.class, "overBudget");

    /**
     * The parts of the relay that every spawn uses; {@code current} is the configuration
     * generation that new connections take.
     */
    record Shared(
            AtomicReference<Generation> current,
            Transport transport,
            Budgets budget,
            WallProcesses wall,
            DecisionSink decisions,
            InstantSource clock,
            AtomicLong ids,
            IntSupplier spawnsOpen) {}

    private static final AttributeKey<Generation> GENERATION =
            AttributeKey.valueOf(SpawnInitializer.class, "generation");

    private final Shared shared;
    private final SpawnPolicy policy;
    private final SpawnPorts ports;
    private final ChannelGroup connections;
    private final Budgets budget = new Budgets();
    private final Optional<DoorToken> token;

    SpawnInitializer(
            Shared shared, SpawnPolicy policy, SpawnPorts ports, ChannelGroup connections, Optional<DoorToken> token) {
        this.shared = shared;
        this.token = token;
        this.policy = policy;
        this.ports = ports;
        this.connections = connections;
    }

    @Override
    protected void initChannel(Channel channel) {
        // Set on the config: NIO's domain socket ignores ALLOW_HALF_CLOSURE as a channel option.
        if (channel.config() instanceof DuplexChannelConfig duplex) {
            duplex.setAllowHalfClosure(true);
        }
        connections.add(channel);
        ConnectionRecord record = ConnectionRecord.attach(
                channel, policy.id(), shared.ids().incrementAndGet(), shared.clock(), shared.decisions());
        Generation generation = shared.current().get();
        channel.attr(GENERATION).set(generation);
        record.generation(generation.number());
        Transport.Peer peer = peer(channel, record.id());
        if (peer != null) {
            shared.wall().add(peer.pid());
        }
        if (policy.peerUid().isPresent()
                && (peer == null || peer.uid() != policy.peerUid().getAsInt())) {
            log.debug(
                    "connection {}: peer {} is not uid {}",
                    record.id(),
                    peer,
                    policy.peerUid().getAsInt());
            record.deny(DenyCode.PEER_UID);
            channel.close();
            return;
        }
        // Counted from accept, so that connections that never send a preamble are bounded too.
        DenyCode full = Budgets.acquire(
                channel,
                budget,
                shared.budget(),
                generation.limits(),
                shared.spawnsOpen().getAsInt());
        if (full != null) {
            channel.attr(OVER_BUDGET).set(full);
        }
        channel.pipeline().addLast("preamble", new PreambleDecoder(ports, this, generation.headerTimeoutMillis()));
    }

    private Transport.Peer peer(Channel channel, long id) {
        try {
            return shared.transport().peers().read(channel);
        } catch (IOException e) {
            log.warn("connection {}: cannot read the peer's credentials: {}", id, e.toString());
            return null;
        }
    }

    @Override
    public ChannelHandler route(Channel channel, Preamble preamble) {
        Generation generation = channel.attr(GENERATION).get();
        DenyCode full = channel.attr(OVER_BUDGET).get();
        if (full != null) {
            ConnectionRecord.of(channel).deny(full);
            return preamble.kind() == Preamble.Kind.PROXY ? answer(full) : closer();
        }
        return switch (preamble.kind()) {
            case PROXY ->
                generation.proxy().handler(request -> generation.judge().decide(policy, request));
            case FORWARD -> {
                ConnectionRecord.of(channel)
                        .target(Request.forward(preamble.port()).shown());
                yield generation
                        .forward()
                        .handler(port -> generation.judge().decide(policy, Request.forward(port)), preamble.port());
            }
            case DOOR -> token.isPresent() ? generation.door().handler(policy, token.get()) : closer();
        };
    }

    private static ChannelHandler answer(DenyCode code) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                ctx.channel().config().setAutoRead(false);
                ProxyKind.refuse(ctx.channel(), code);
            }
        };
    }

    private static ChannelHandler closer() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                ctx.close();
            }
        };
    }
}
