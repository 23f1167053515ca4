package io.portcullis.relay.tunnel;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.portcullis.owner.PortHolders;
import io.portcullis.relay.dnsclient.LocalServerCheck;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.UpstreamRoute;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The host's upstream HTTP proxy (SPEC R25): reaching a target outside this host through it. What
 * it carries, what it is told and which of its addresses may be dialed are the pure rules of
 * {@link UpstreamRoute}; here its name is resolved with the relay's DNS for each connection, a proxy
 * on this host is dialed only while its port is held by a uid the host configuration trusts for it
 * ({@link LocalServerCheck}, {@code upstream-failed} with nothing sent), and each CONNECT is one
 * {@link UpstreamConnect}. A 502, 503 or 504 answer (the proxy could not reach that address) moves
 * on to the next checked address.
 */
public final class UpstreamProxy {
    private final UpstreamRoute route;
    private final Resolver resolver;
    private final LocalServerCheck holders;
    private final Dialer dialer;
    private final int headBytes;
    private final long answerMillis;

    /**
     * @param resolver resolves the proxy's name; unused when the proxy is an address
     * @param holders who may hold the proxy's port when the proxy is on this host (R25)
     * @param headBytes the longest answer head the proxy may send to a CONNECT
     * @param answerMillis how long the proxy may take to answer a CONNECT
     */
    public UpstreamProxy(
            UpstreamRoute route,
            Resolver resolver,
            LocalServerCheck holders,
            Dialer dialer,
            int headBytes,
            long answerMillis) {
        this.route = Objects.requireNonNull(route, "route");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.holders = Objects.requireNonNull(holders, "holders");
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        if (headBytes < 64 || answerMillis < 1) {
            throw new IllegalArgumentException(
                    "headBytes/answerMillis: " + headBytes + "/" + answerMillis + " (expected: >= 64 / >= 1)");
        }
        this.headBytes = headBytes;
        this.answerMillis = answerMillis;
    }

    /** Whether {@code allow} goes through the proxy: its target is outside this host and not bypassed. */
    public boolean carries(Verdict.Allow allow) {
        return route.carries(allow);
    }

    /** A plain HTTP request on its way to the proxy: the absolute form's authority and the credentials. */
    public record Request(String authority, Optional<String> authorization) {
        public Request {
            Objects.requireNonNull(authority, "authority");
            Objects.requireNonNull(authorization, "authorization");
        }

        @Override
        public String toString() {
            return "Request[authority=" + authority + ", authorization="
                    + (authorization.isPresent() ? "(set)" : "none") + "]";
        }
    }

    /** The checked address the proxy is told of for {@code allow}: its first, or none when the name is sent. */
    public Optional<InetSocketAddress> checked(Verdict.Allow allow) {
        return route.checked(allow, 0);
    }

    /** The authority a plain HTTP request for {@code allow} names upstream: its first checked address, or its name. */
    public Request request(Verdict.Allow allow) {
        return new Request(route.authorities(allow).getFirst(), route.config().authorization());
    }

    /**
     * Connects to the proxy itself, for a plain HTTP request of {@code client} for {@code allow}
     * sent to it in absolute form; completes on the client's event loop.
     */
    public CompletableFuture<Dialer.Outcome> reach(
            Channel client, Verdict.Allow allow, Consumer<InetSocketAddress> attempt) {
        return proxyAddresses(client.eventLoop(), allow).thenCompose(addresses -> switch (addresses) {
            case UpstreamRoute.Unusable unusable ->
                CompletableFuture.completedFuture(new Dialer.Failed(unusable.code(), unusable.detail()));
            case UpstreamRoute.Usable usable ->
                dialer.dial(client, usable.addresses(), attempt).thenApply(UpstreamProxy::asUpstreamFailure);
        });
    }

    /**
     * A tunnel through the proxy to {@code allow}'s target: a CONNECT for each checked address in
     * turn (one for the name with {@code sendNames}) until the proxy answers 2xx. The connected
     * channel carries the target's bytes; any the proxy sent after its answer are in {@link
     * UpstreamConnect.Tunnel#leftover()}.
     *
     * @param client the connection the tunnel is for: once it closes, no further CONNECT is sent
     *     and one under way is given up
     * @param attempt told of each proxy address before it is dialed
     * @return completes on the client's event loop
     */
    CompletableFuture<UpstreamConnect.Answered> connect(Channel client, Verdict.Allow allow, Attempt attempt) {
        return proxyAddresses(client.eventLoop(), allow).thenCompose(addresses -> switch (addresses) {
            case UpstreamRoute.Unusable unusable ->
                CompletableFuture.completedFuture(new UpstreamConnect.Failed(unusable.code(), unusable.detail(), 0));
            case UpstreamRoute.Usable usable -> {
                CompletableFuture<UpstreamConnect.Answered> result = new CompletableFuture<>();
                next(client, usable.addresses(), allow, route.authorities(allow), 0, attempt, result);
                yield result;
            }
        });
    }

    /** Told of each CONNECT before its proxy address is dialed. */
    @FunctionalInterface
    interface Attempt {
        /**
         * @param proxy the proxy's address about to be dialed
         * @param authority what the CONNECT names
         * @param checked the checked address that the authority names; empty when it names the target's name
         */
        void dialing(InetSocketAddress proxy, String authority, Optional<InetSocketAddress> checked);
    }

    private void next(
            Channel client,
            List<InetSocketAddress> proxies,
            Verdict.Allow allow,
            List<String> authorities,
            int index,
            Attempt attempt,
            CompletableFuture<UpstreamConnect.Answered> result) {
        if (!client.isActive()) {
            result.complete(new UpstreamConnect.Failed(
                    DenyCode.CLIENT_CLOSED, "the client left before the upstream proxy answered", 0));
            return;
        }
        String authority = authorities.get(index);
        Optional<InetSocketAddress> checked = route.checked(allow, index);
        dialer.dial(client, proxies, proxy -> attempt.dialing(proxy, authority, checked))
                .thenAccept(dialed -> {
                    switch (asUpstreamFailure(dialed)) {
                        case Dialer.Failed failed ->
                            result.complete(new UpstreamConnect.Failed(failed.code(), failed.detail(), 0));
                        case Dialer.Connected connected ->
                            UpstreamConnect.send(
                                            client,
                                            connected.channel(),
                                            connected.address(),
                                            authority,
                                            route.config().authorization(),
                                            headBytes,
                                            answerMillis)
                                    .thenAccept(answered -> {
                                        if (answered instanceof UpstreamConnect.Failed failed
                                                && isUnreachable(failed.status())
                                                && index + 1 < authorities.size()) {
                                            next(client, proxies, allow, authorities, index + 1, attempt, result);
                                        } else {
                                            result.complete(answered);
                                        }
                                    });
                    }
                });
    }

    private static boolean isUnreachable(int status) {
        return status == 502 || status == 503 || status == 504;
    }

    /**
     * The proxy's addresses for {@code allow}, judged, and each on this host held by a trusted uid;
     * completes on {@code loop}, whatever thread resolved or checked them.
     */
    private CompletableFuture<UpstreamRoute.Proxy> proxyAddresses(EventLoop loop, Verdict.Allow allow) {
        Target proxy = route.config().proxy();
        CompletableFuture<UpstreamRoute.Proxy> judged = !proxy.isName()
                ? CompletableFuture.completedFuture(
                        route.judge(List.of(proxy.literal().orElseThrow()), allow))
                : resolver.resolve(proxy.host())
                        .thenApply(resolution -> resolution.status() == Resolution.Status.RESOLVED
                                ? route.judge(resolution.addresses(), allow)
                                : new UpstreamRoute.Unusable(
                                        DenyCode.UPSTREAM_FAILED,
                                        "the upstream proxy's name " + proxy.host() + " did not resolve: "
                                                + resolution.detail()));
        CompletableFuture<UpstreamRoute.Proxy> held = judged.thenCompose(this::held);
        return held.isDone() && loop.inEventLoop() ? held : held.thenApplyAsync(addresses -> addresses, loop);
    }

    /** {@code addresses}, when every one of them on this host is held by a trusted uid (R25). */
    private CompletableFuture<UpstreamRoute.Proxy> held(UpstreamRoute.Proxy addresses) {
        if (!(addresses instanceof UpstreamRoute.Usable usable)) {
            return CompletableFuture.completedFuture(addresses);
        }
        List<CompletableFuture<Optional<String>>> checks = usable.addresses().stream()
                .map(address -> holders.refusal(PortHolders.Protocol.TCP, address))
                .toList();
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).thenApply(done -> {
            for (CompletableFuture<Optional<String>> check : checks) {
                Optional<String> refusal = check.join();
                if (refusal.isPresent()) {
                    return new UpstreamRoute.Unusable(DenyCode.UPSTREAM_FAILED, refusal.get());
                }
            }
            return addresses;
        });
    }

    /** A failure to reach the proxy is the proxy's; a client that left meanwhile stays {@code client-closed}. */
    private static Dialer.Outcome asUpstreamFailure(Dialer.Outcome outcome) {
        return outcome instanceof Dialer.Failed failed && failed.code() != DenyCode.CLIENT_CLOSED
                ? new Dialer.Failed(DenyCode.UPSTREAM_FAILED, "the upstream proxy: " + failed.detail())
                : outcome;
    }
}
