package io.portcullis.relay.accept;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannelConfig;
import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.wire.Handoff;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one handler of a handed-over listening socket's channel: each connection it accepts gets its
 * decision record, the spawn's new-connection rate and the connection budgets (a connection over
 * either is answered and closed at once, SPEC R16), then the one handler of its kind, chosen by the
 * socket (SPEC R4: nothing on the wire names it), and goes to the next event loop. A named entry's
 * socket names its entry by its synthetic address (SPEC R24).
 * Failed accepts never reach it: {@link AcceptFailures} sorts them first.
 */
final class Acceptor extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Acceptor.class);

    private final RelayParts relay;
    private final SpawnParts spawn;
    private final EventLoopGroup loops;
    private final Handoff.Socket socket;
    /** What a forward or named entry's connection asks for; empty for the proxy and the door. */
    private final Optional<Request> forwarded;

    Acceptor(RelayParts relay, SpawnParts spawn, EventLoopGroup loops, Handoff.Socket socket) {
        this.relay = Objects.requireNonNull(relay, "relay");
        this.spawn = Objects.requireNonNull(spawn, "spawn");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.socket = Objects.requireNonNull(socket, "socket");
        this.forwarded = switch (socket.kind()) {
            case FORWARD -> Optional.of(Request.forward(socket.port()));
            // A named entry's socket is a forward whose target is the entry itself (SPEC R24).
            case NAMED ->
                Optional.of(Request.connect(spawn.policy()
                        .named(socket.address())
                        .map(SpawnPolicy.Named::entry)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "socket: " + socket + " (expected: a named entry of the spawn's policy)"))
                        .target()
                        .toString()));
            case PROXY, DOOR -> Optional.empty();
            case DNS -> throw new IllegalArgumentException("socket: " + socket + " (expected: a stream socket)");
        };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel child = (Channel) msg;
        try {
            accepted(child);
        } catch (RuntimeException e) {
            log.warn(
                    "spawn {}: {}: could not take a connection: {}",
                    spawn.policy().id(),
                    socket,
                    e.toString());
            child.unsafe().closeForcibly();
        }
    }

    private void accepted(Channel child) {
        // TCP_NODELAY is Netty's default for accepted sockets already.
        if (child.config() instanceof SocketChannelConfig tcp) {
            tcp.setAllowHalfClosure(true);
        }
        spawn.connections().add(child);
        ConnectionRecord record = ConnectionRecord.attach(
                child,
                spawn.policy().id(),
                relay.ids().incrementAndGet(),
                relay.clock(),
                relay.decisions(),
                spawn.traffic());
        record.kind(socket.kind().label());
        Generation generation = relay.current().get();
        record.generation(generation.number());
        // One judge for the whole connection: the generation and the policy's revision in effect now.
        SpawnJudge judge = spawn.judge(generation);
        record.revision(judge.revision());
        HostConfig.Limits limits = generation.limits();
        Optional<DenyCode> full = spawn.rate().tryTake(System.nanoTime(), limits.spawnRate(), limits.spawnBurst())
                ? Budgets.acquire(
                        child,
                        spawn.budget(),
                        relay.budget(),
                        limits,
                        relay.spawnsOpen().getAsInt())
                : Optional.of(DenyCode.LIMIT_RATE);
        if (full.isPresent()) {
            boolean linger =
                    socket.kind() == Handoff.Kind.PROXY && relay.budget().tryLinger(child);
            record.deny(
                    full.get(),
                    linger || socket.kind() != Handoff.Kind.PROXY
                            ? ""
                            : full.get().sentence() + "; answered and closed at once: " + Budgets.LINGERING
                                    + " refused connections linger already");
            child.config().setAutoRead(false);
            register(child).addListener(registered -> {
                if (!registered.isSuccess()) {
                    return;
                }
                if (socket.kind() == Handoff.Kind.PROXY) {
                    ProxyKind.refuse(child, full.get(), linger);
                } else {
                    child.close();
                }
            });
            return;
        }
        child.pipeline().addLast(socket.kind().label(), handler(generation, judge, record));
        register(child);
    }

    /** The connection's one handler: its kind's, with {@code judge}, this spawn's for {@code generation}. */
    private ChannelHandler handler(Generation generation, SpawnJudge judge, ConnectionRecord record) {
        return switch (socket.kind()) {
            case PROXY -> generation.proxy().handler(judge);
            case FORWARD, NAMED -> {
                Request request = forwarded.orElseThrow();
                record.target(request.shown());
                yield generation.forward().handler(judge, request);
            }
            case DOOR -> generation.door().handler(judge.policy(), spawn.token().orElseThrow());
            case DNS -> throw new IllegalStateException("kind: dns (expected: a stream socket's kind)");
        };
    }

    private ChannelFuture register(Channel child) {
        ChannelFuture registered = loops.next().register(child);
        registered.addListener(done -> {
            if (!done.isSuccess()) {
                log.debug(
                        "spawn {}: {}: could not register a connection: {}",
                        spawn.policy().id(),
                        socket,
                        done.cause());
                child.unsafe().closeForcibly();
            }
        });
        return registered;
    }
}
