package io.portcullis.relay.accept;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannelConfig;
import io.portcullis.relay.decide.ConnectionJudge;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Rate;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.wire.Handoff;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

/**
 * Sets up each connection accepted on one of a spawn's handed-over sockets: its kind and port are
 * those of the socket (SPEC R4), so nothing on the wire names them; a named entry's socket names
 * its entry by its synthetic address (SPEC R24). The decision record, the spawn's new-connection
 * rate and the connection budgets (a connection over either is answered and closed at once, SPEC
 * R16), then the kind's handler.
 */
public final class SpawnInitializer extends ChannelInitializer<Channel> {

    /**
     * The parts of the relay that every spawn uses; {@code current} is the configuration
     * generation that new connections take.
     */
    public record Shared(
            AtomicReference<Generation> current,
            Budgets budget,
            DecisionSink decisions,
            InstantSource clock,
            AtomicLong ids,
            IntSupplier spawnsOpen) {}

    /**
     * What one spawn's sockets share: its policy, its connections, its budget, its new-connection
     * rate and its door token.
     */
    public record Spawn(
            SpawnPolicy policy, ChannelGroup connections, Budgets budget, Rate rate, Optional<DoorToken> token) {}

    private final Shared shared;
    private final Spawn spawn;
    private final Handoff.Kind kind;
    private final int port;
    /** The named entry this socket serves; empty for the other kinds. */
    private final Optional<SpawnPolicy.Named> named;

    public SpawnInitializer(Shared shared, Spawn spawn, Handoff.Socket socket) {
        this.shared = shared;
        this.spawn = spawn;
        this.kind = socket.kind();
        this.port = socket.port();
        this.named = kind == Handoff.Kind.NAMED ? spawn.policy().named(socket.address()) : Optional.empty();
        if (kind == Handoff.Kind.NAMED && named.isEmpty()) {
            throw new IllegalArgumentException(
                    "socket: " + socket + " (expected: a named entry of the spawn's policy)");
        }
    }

    @Override
    protected void initChannel(Channel channel) {
        // TCP_NODELAY is Netty's default for accepted sockets already.
        if (channel.config() instanceof SocketChannelConfig tcp) {
            tcp.setAllowHalfClosure(true);
        }
        spawn.connections().add(channel);
        ConnectionRecord record = ConnectionRecord.attach(
                channel, spawn.policy().id(), shared.ids().incrementAndGet(), shared.clock(), shared.decisions());
        record.kind(kind.label());
        Generation generation = shared.current().get();
        record.generation(generation.number());
        HostConfig.Limits limits = generation.limits();
        DenyCode full = spawn.rate().tryTake(System.nanoTime(), limits.spawnRate(), limits.spawnBurst())
                ? Budgets.acquire(
                        channel,
                        spawn.budget(),
                        shared.budget(),
                        limits,
                        shared.spawnsOpen().getAsInt())
                : DenyCode.LIMIT_RATE;
        if (full != null) {
            record.deny(full);
            channel.config().setAutoRead(false);
            if (kind == Handoff.Kind.PROXY) {
                ProxyKind.refuse(channel, full, shared.budget().tryLinger(channel));
            } else {
                channel.close();
            }
            return;
        }
        channel.pipeline().addLast(kind.label(), handler(channel, generation));
    }

    /**
     * The enforced verdict on {@code request}; with a shadow policy (SPEC R26), it completes only
     * once the shadow's answer is in the connection's record, on its event loop, so the decision
     * line always carries it. The shadow never changes the verdict; its failure is an unknown.
     */
    private static CompletableFuture<Verdict> decide(
            Channel channel, Generation generation, SpawnPolicy policy, Request request) {
        CompletableFuture<Verdict> enforced = generation.judge().decide(policy, request);
        if (policy.shadow().isEmpty()) {
            return enforced;
        }
        SpawnPolicy shadow = policy.shadow().get();
        CompletableFuture<Verdict> recorded = new CompletableFuture<>();
        enforced.whenComplete((verdict, error) -> {
            if (error != null) {
                recorded.completeExceptionally(error);
                return;
            }
            CompletableFuture<Optional<Verdict>> answer;
            try {
                answer = generation.judge().shadow(shadow, request, verdict);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((said, failed) -> channel.eventLoop().execute(() -> {
                ConnectionRecord.of(channel).shadow(verdict, failed == null ? said : Optional.empty());
                recorded.complete(verdict);
            }));
        });
        return recorded;
    }

    private ChannelHandler handler(Channel channel, Generation generation) {
        SpawnPolicy policy = spawn.policy();
        // The generation's judge, bound once to this spawn and this connection (for its shadow's answer).
        ConnectionJudge judge = request -> decide(channel, generation, policy, request);
        return switch (kind) {
            case PROXY -> generation.proxy().handler(judge);
            case FORWARD -> {
                ConnectionRecord.of(channel).target(Request.forward(port).shown());
                yield generation.forward().handler(judge, Request.forward(port));
            }
            case DOOR -> generation.door().handler(policy, spawn.token().orElseThrow());
            case NAMED -> {
                // A named entry's socket is a forward whose target is the entry itself (SPEC R24).
                String target = named.orElseThrow().entry().target().toString();
                ConnectionRecord.of(channel).target(target);
                yield generation.forward().handler(judge, Request.connect(target));
            }
            case DNS -> throw new IllegalStateException("kind: dns (expected: a stream socket's kind)");
        };
    }
}
