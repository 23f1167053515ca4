package io.portcullis.relay.tunnel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.transport.Transport;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Connects to the checked addresses in order, the next one on failure, each with its own connect
 * timeout (SPEC R9, R16). It dials nothing else: the addresses are the ones the policy judged, and
 * no resolver is asked, so no address is looked up again.
 */
public final class Dialer {
    private final Transport transport;
    private final int connectTimeoutMillis;

    public Dialer(Transport transport, int connectTimeoutMillis) {
        this.transport = Objects.requireNonNull(transport, "transport");
        if (connectTimeoutMillis < 1) {
            throw new IllegalArgumentException("connectTimeoutMillis: " + connectTimeoutMillis + " (expected: >= 1)");
        }
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    /** A connected channel and the address it reached, or the code of the last failure. */
    public sealed interface Outcome permits Connected, Failed {}

    /** The channel is connected, has auto-read off and no handlers yet. */
    public record Connected(Channel channel, InetSocketAddress address) implements Outcome {}

    /** Every address failed: {@code connect-timeout} when each timed out, else {@code connect-failed}. */
    public record Failed(DenyCode code, String detail) implements Outcome {}

    private static final Failed CLIENT_GONE =
            new Failed(DenyCode.CLIENT_CLOSED, "the client left while its target was dialed");

    /**
     * Dials {@code addresses} for {@code client}, on its event loop; completes on that loop. Once
     * the client has closed, the attempt under way is closed and no further address is dialed
     * ({@code client-closed}): a dial holds a descriptor that no budget counts once its client has
     * gone, and a DNS answer of many addresses that never answer would hold it for a connect
     * timeout each.
     *
     * @param attempt told of each address before it is dialed
     */
    public CompletableFuture<Outcome> dial(
            Channel client, List<InetSocketAddress> addresses, Consumer<InetSocketAddress> attempt) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("addresses: [] (expected: at least one checked address)");
        }
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        next(client, List.copyOf(addresses), 0, true, attempt, result);
        return result;
    }

    /**
     * A channel to {@code address}'s family on the client's event loop: auto-read off, half-closure
     * allowed, the connect timeout set, and no handler. No bootstrap and no resolver: registering
     * on the loop the caller runs on is done at once.
     */
    private ChannelFuture connect(Channel client, InetSocketAddress address) {
        Channel channel = transport.tcp().to(address).newChannel();
        channel.config().setAutoRead(false);
        channel.config().setConnectTimeoutMillis(connectTimeoutMillis);
        channel.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ChannelFuture registered = client.eventLoop().register(channel);
        if (registered.isDone()) {
            return registered.isSuccess() ? channel.connect(address) : registered;
        }
        ChannelPromise connected = channel.newPromise();
        registered.addListener(done -> {
            if (done.isSuccess()) {
                channel.connect(address, connected);
            } else {
                connected.setFailure(done.cause());
            }
        });
        return connected;
    }

    private void next(
            Channel client,
            List<InetSocketAddress> addresses,
            int index,
            boolean allTimedOut,
            Consumer<InetSocketAddress> attempt,
            CompletableFuture<Outcome> result) {
        if (!client.isActive()) {
            result.complete(CLIENT_GONE);
            return;
        }
        InetSocketAddress address = addresses.get(index);
        attempt.accept(address);
        ChannelFuture connect = connect(client, address);
        ChannelFutureListener giveUp = closed -> connect.channel().close();
        client.closeFuture().addListener(giveUp);
        connect.addListener(f -> {
            client.closeFuture().removeListener(giveUp);
            if (f.isSuccess()) {
                result.complete(new Connected(connect.channel(), address));
                return;
            }
            boolean timedOut = allTimedOut && f.cause() instanceof ConnectTimeoutException;
            if (!client.isActive()) {
                result.complete(CLIENT_GONE);
            } else if (index + 1 < addresses.size()) {
                next(client, addresses, index + 1, timedOut, attempt, result);
            } else {
                DenyCode code = timedOut ? DenyCode.CONNECT_TIMEOUT : DenyCode.CONNECT_FAILED;
                result.complete(new Failed(code, address + ": " + f.cause().getMessage()));
            }
        });
    }
}
