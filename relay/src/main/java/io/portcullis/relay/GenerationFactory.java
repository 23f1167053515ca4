package io.portcullis.relay;

import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.door.DoorKind;
import io.portcullis.relay.forward.ForwardKind;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.tunnel.Dialer;
import io.portcullis.relay.tunnel.Transport;
import io.portcullis.relay.tunnel.Tunnels;
import io.portcullis.relay.tunnel.UpstreamProxy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds a configuration generation from a host configuration: the owner check (unless given;
 * rebuilt because the installed add-ons and exceptions are part of the host configuration), the
 * judge over it (unless the embedder gave one), the upstream proxy (SPEC R25) when the host names
 * one, and the kinds with the generation's limits. The
 * door kind asks the same owner check who holds the gateway's port, so a relay given a judge
 * still builds the system's owner check for its doors.
 */
final class GenerationFactory {
    private final Transport transport;
    private final Metrics metrics;
    private final WallProcesses wall;
    private final Judge givenJudge;
    private final OwnerCheck givenOwnerCheck;

    /** @param givenJudge and {@code givenOwnerCheck}: null for the real ones, built per generation */
    GenerationFactory(
            Transport transport, Metrics metrics, WallProcesses wall, Judge givenJudge, OwnerCheck givenOwnerCheck) {
        this.transport = transport;
        this.metrics = metrics;
        this.wall = wall;
        this.givenJudge = givenJudge;
        this.givenOwnerCheck = givenOwnerCheck;
    }

    Generation build(long number, HostConfig host) throws IOException {
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            OwnerCheck owner = Deciders.timedCheck(ownerCheck(host, owned), metrics.owner());
            boolean upstreamNamed = host.upstream()
                    .filter(upstream -> upstream.proxy().isName())
                    .isPresent();
            Optional<Deciders.Dns> dns = givenJudge == null || upstreamNamed
                    ? Optional.of(Deciders.dns(host, owned, metrics))
                    : Optional.empty();
            Judge judge = givenJudge != null ? givenJudge : Deciders.real(host, dns.orElseThrow(), owner, owned);
            HostConfig.Limits limits = host.limits();
            Dialer dialer = new Dialer(
                    transport, Math.toIntExact(limits.connectTimeout().toMillis()));
            Optional<UpstreamProxy> upstream = host.upstream()
                    .map(config -> new UpstreamProxy(
                            config,
                            dns.map(Deciders.Dns::plain).orElse(Deciders.NO_NAMES),
                            host.denyList(),
                            dialer,
                            limits.headerBytes(),
                            limits.connectTimeout().toMillis()));
            Tunnels tunnels = new Tunnels(
                    dialer,
                    limits.idleTimeout().toMillis(),
                    limits.headerTimeout().toMillis(),
                    metrics,
                    upstream);
            long headerTimeout = limits.headerTimeout().toMillis();
            long total = limits.httpTotal().toMillis();
            return new Generation(
                    number,
                    host,
                    judge,
                    new ProxyKind(
                            limits.headerBytes(),
                            headerTimeout,
                            tunnels,
                            new Exchange.Limits(limits.httpRequestBytes(), limits.httpResponseBytes(), total)),
                    new ForwardKind(tunnels),
                    new DoorKind(
                            limits.headerBytes(),
                            headerTimeout,
                            host.owner(),
                            owner,
                            tunnels,
                            new Exchange.Limits(limits.doorBodyBytes(), limits.httpResponseBytes(), total)),
                    owned);
        } catch (IOException | RuntimeException e) {
            Retirement.closeQuietly(owned, e);
            throw e;
        }
    }

    private OwnerCheck ownerCheck(HostConfig host, List<AutoCloseable> owned) {
        if (givenOwnerCheck != null) {
            return givenOwnerCheck;
        }
        ManagedOwnerCheck system = OwnerChecks.system(host.owner(), wall);
        owned.add(system);
        return system;
    }
}
