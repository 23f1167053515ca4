package io.portcullis.relay.door;

import io.netty.channel.ChannelHandler;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.tunnel.Tunnels;
import java.util.Objects;

/** The door kind of a configuration generation: its limits, the gateway's check, and the handler of each connection. */
public final class DoorKind {
    private final int headerBytes;
    private final long headerTimeoutMillis;
    private final GatewayCheck gateway;
    private final Tunnels tunnels;
    private final Exchange.Limits limits;

    /**
     * A door kind that asks {@code owner} who holds the gateway's port before each request is
     * dialed (SPEC R13 {@code door-gateway}); no request reaches the port without that answer.
     *
     * @param gateway the gateway's uid and real port on 127.0.0.1 ({@code owner.gatewayUid},
     *     {@code owner.gatewayPort}); with port 0 every allowed door request fails with
     *     {@code connect-failed}, with uid -1 it is refused with {@code door-gateway}
     * @param owner the relay's owner check, the one its judge asks
     * @param limits the exchange's limits; the request body's is {@code limits.doorBodyBytes}
     */
    public DoorKind(
            int headerBytes,
            long headerTimeoutMillis,
            OwnerConfig gateway,
            OwnerCheck owner,
            Tunnels tunnels,
            Exchange.Limits limits) {
        this.headerBytes = headerBytes;
        this.headerTimeoutMillis = headerTimeoutMillis;
        this.gateway = new GatewayCheck(owner, gateway.gatewayUid(), gateway.gatewayPort());
        this.tunnels = Objects.requireNonNull(tunnels, "tunnels");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** The handler for one door connection of {@code policy}, whose door token is {@code token}. */
    public ChannelHandler handler(SpawnPolicy policy, DoorToken token) {
        return new DoorHandler(this, policy, Objects.requireNonNull(token, "token"));
    }

    int headerBytes() {
        return headerBytes;
    }

    long headerTimeoutMillis() {
        return headerTimeoutMillis;
    }

    /** Who holds the gateway's port, asked before each dial. */
    GatewayCheck gateway() {
        return gateway;
    }

    Tunnels tunnels() {
        return tunnels;
    }

    Exchange.Limits limits() {
        return limits;
    }

    long bodyLimit() {
        return limits.requestBytes();
    }
}
