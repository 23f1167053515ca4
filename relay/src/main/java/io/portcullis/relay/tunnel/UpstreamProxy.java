package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.portcullis.owner.PortHolders;
import io.portcullis.relay.policy.Cidr;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.DenyList;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.LocalServerCheck;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The host's upstream HTTP proxy (SPEC R25): how a target outside this host is reached when the
 * host configuration names one. The target was resolved and judged as always; the proxy is told
 * the checked address ({@code CONNECT 192.0.2.7:443}), so it resolves nothing, or the name with
 * {@code sendNames}. The proxy's own addresses are judged too: a name is resolved with the relay's
 * DNS for each connection, an address in the host's deny list is never dialed, and a proxy on this
 * host is dialed only while its port is held by a uid the host configuration trusts for it
 * ({@link LocalServerCheck}, {@code upstream-failed} with nothing sent).
 *
 * <p>Targets on this host (those the owner check judged, and loopback) and those the bypass names
 * are dialed directly. A proxy that cannot be reached, or whose answer is not an HTTP status line
 * within the connect timeout, is {@code upstream-failed}; one that answers a CONNECT with another
 * status than 2xx is {@code upstream-refused}, its status in the detail. A 502, 503 or 504 answer
 * (the proxy could not reach that address) moves on to the next checked address first.
 */
public final class UpstreamProxy {
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] ([1-5][0-9]{2})(?: ([^\\r\\n]*))?");

    private final HostConfig.Upstream config;
    private final Resolver resolver;
    private final DenyList denyList;
    private final LocalServerCheck holders;
    private final Dialer dialer;
    private final int headBytes;
    private final long answerMillis;

    /**
     * @param resolver resolves the proxy's name; unused when the proxy is an address
     * @param denyList the host's deny list, which the proxy's addresses must be outside of
     * @param holders who may hold the proxy's port when the proxy is on this host (R25)
     * @param headBytes the longest answer head the proxy may send to a CONNECT
     * @param answerMillis how long the proxy may take to answer a CONNECT
     */
    public UpstreamProxy(
            HostConfig.Upstream config,
            Resolver resolver,
            DenyList denyList,
            LocalServerCheck holders,
            Dialer dialer,
            int headBytes,
            long answerMillis) {
        this.config = Objects.requireNonNull(config, "config");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.denyList = Objects.requireNonNull(denyList, "denyList");
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
        if (allow.owner().isPresent()) {
            return false;
        }
        List<InetAddress> addresses = new ArrayList<>(allow.dial().size());
        for (InetSocketAddress address : allow.dial()) {
            if (address.getAddress().isLoopbackAddress()) {
                return false;
            }
            addresses.add(address.getAddress());
        }
        return !config.bypasses(allow.target().filter(Target::isName).map(Target::host), addresses);
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
        return sendsName(allow) ? Optional.empty() : Optional.of(allow.dial().getFirst());
    }

    /** The authority a plain HTTP request for {@code allow} names upstream: its first checked address, or its name. */
    public Request request(Verdict.Allow allow) {
        return new Request(authorities(allow).getFirst(), config.authorization());
    }

    /**
     * Connects to the proxy itself, for a plain HTTP request of {@code client} for {@code allow}
     * sent to it in absolute form; completes on the client's event loop.
     */
    public CompletableFuture<Dialer.Outcome> reach(
            Channel client, Verdict.Allow allow, Consumer<InetSocketAddress> attempt) {
        return proxyAddresses(client.eventLoop(), allow).thenCompose(addresses -> switch (addresses) {
            case Unusable unusable ->
                CompletableFuture.completedFuture(new Dialer.Failed(unusable.code(), unusable.detail()));
            case Judged judged ->
                dialer.dial(client, judged.addresses(), attempt).thenApply(UpstreamProxy::asUpstreamFailure);
        });
    }

    /**
     * A tunnel through the proxy to {@code allow}'s target: a CONNECT for each checked address in
     * turn (one for the name with {@code sendNames}) until the proxy answers 2xx. The connected
     * channel carries the target's bytes; any the proxy sent after its answer are in {@link
     * Tunnel#leftover()}.
     *
     * @param client the connection the tunnel is for: once it closes, no further CONNECT is sent
     *     and one under way is given up
     * @param attempt told of each proxy address before it is dialed
     * @return completes on the client's event loop
     */
    public CompletableFuture<Outcome> connect(Channel client, Verdict.Allow allow, Attempt attempt) {
        EventLoop loop = client.eventLoop();
        return proxyAddresses(loop, allow).thenCompose(addresses -> switch (addresses) {
            case Unusable unusable ->
                CompletableFuture.completedFuture(new Failed(unusable.code(), unusable.detail(), 0));
            case Judged judged -> {
                CompletableFuture<Outcome> result = new CompletableFuture<>();
                next(client, judged.addresses(), allow, authorities(allow), 0, attempt, result);
                yield result;
            }
        });
    }

    /** Told of each CONNECT before its proxy address is dialed. */
    @FunctionalInterface
    public interface Attempt {
        /**
         * @param proxy the proxy's address about to be dialed
         * @param authority what the CONNECT names
         * @param checked the checked address that the authority names; empty when it names the target's name
         */
        void dialing(InetSocketAddress proxy, String authority, Optional<InetSocketAddress> checked);
    }

    /** What a CONNECT through the proxy came to. */
    public sealed interface Outcome permits Tunnel, Failed {}

    /**
     * The proxy answered 2xx.
     *
     * @param proxy the proxy's address that answered
     * @param authority what the CONNECT named
     * @param status the proxy's 2xx status
     * @param leftover bytes the proxy sent after its answer (the target's first), possibly none
     */
    public record Tunnel(Channel channel, InetSocketAddress proxy, String authority, int status, ByteBuf leftover)
            implements Outcome {}

    /**
     * The proxy could not be reached, broke the protocol, or refused.
     *
     * @param status the proxy's answer, 0 when it gave none
     */
    public record Failed(DenyCode code, String detail, int status) implements Outcome {}

    private void next(
            Channel client,
            List<InetSocketAddress> proxies,
            Verdict.Allow allow,
            List<String> authorities,
            int index,
            Attempt attempt,
            CompletableFuture<Outcome> result) {
        if (!client.isActive()) {
            result.complete(
                    new Failed(DenyCode.CLIENT_CLOSED, "the client left before the upstream proxy answered", 0));
            return;
        }
        String authority = authorities.get(index);
        Optional<InetSocketAddress> checked = authorities.size() == allow.dial().size() && !sendsName(allow)
                ? Optional.of(allow.dial().get(index))
                : Optional.empty();
        dialer.dial(client, proxies, proxy -> attempt.dialing(proxy, authority, checked))
                .thenAccept(dialed -> {
                    switch (dialed) {
                        case Dialer.Failed failed -> {
                            Dialer.Failed proxyFailed = (Dialer.Failed) asUpstreamFailure(failed);
                            result.complete(new Failed(proxyFailed.code(), proxyFailed.detail(), 0));
                        }
                        case Dialer.Connected connected ->
                            handshake(client, connected, authority).whenComplete((outcome, error) -> {
                                if (error != null) {
                                    connected.channel().close();
                                    result.complete(
                                            new Failed(DenyCode.UPSTREAM_FAILED, "the upstream proxy: " + error, 0));
                                } else if (outcome instanceof Failed failed
                                        && isUnreachable(failed.status())
                                        && index + 1 < authorities.size()) {
                                    next(client, proxies, allow, authorities, index + 1, attempt, result);
                                } else {
                                    result.complete(outcome);
                                }
                            });
                    }
                });
    }

    private static boolean isUnreachable(int status) {
        return status == 502 || status == 503 || status == 504;
    }

    /**
     * Sends the CONNECT and reads the answer's head; completes on the channel's event loop. The
     * client closing meanwhile gives the handshake up and closes the proxy's connection.
     */
    private CompletableFuture<Outcome> handshake(Channel client, Dialer.Connected connected, String authority) {
        Channel channel = connected.channel();
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Answer answer = new Answer(connected.address(), authority, outcome);
        channel.pipeline().addLast("upstream-answer", answer);
        ChannelFutureListener gone = closed -> answer.fail("the client left");
        client.closeFuture().addListener(gone);
        outcome.whenComplete((done, error) -> client.closeFuture().removeListener(gone));
        StringBuilder head = new StringBuilder()
                .append("CONNECT ")
                .append(authority)
                .append(" HTTP/1.1\r\n")
                .append("Host: ")
                .append(authority)
                .append("\r\n");
        config.authorization()
                .ifPresent(value ->
                        head.append("Proxy-Authorization: ").append(value).append("\r\n"));
        head.append("\r\n");
        channel.writeAndFlush(Unpooled.copiedBuffer(head, StandardCharsets.US_ASCII))
                .addListener(written -> {
                    if (!written.isSuccess()) {
                        answer.fail("the CONNECT could not be written: " + written.cause());
                    }
                });
        channel.read();
        return outcome;
    }

    /** Reads the proxy's answer to a CONNECT, then leaves the pipeline. */
    private final class Answer extends ChannelInboundHandlerAdapter {
        private final InetSocketAddress proxy;
        private final String authority;
        private final CompletableFuture<Outcome> outcome;
        private ByteBuf head = Unpooled.EMPTY_BUFFER;
        private ChannelHandlerContext ctx;
        private Future<?> timer;

        Answer(InetSocketAddress proxy, String authority, CompletableFuture<Outcome> outcome) {
            this.proxy = proxy;
            this.authority = authority;
            this.outcome = outcome;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            this.head = ctx.alloc().buffer(256);
            timer = ctx.executor()
                    .schedule(
                            () -> fail("no answer to the CONNECT within " + answerMillis + " ms"),
                            answerMillis,
                            TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes) || outcome.isDone()) {
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                head.writeBytes(bytes);
            } finally {
                bytes.release();
            }
            int end = endOfHead(head);
            if (end < 0 ? head.readableBytes() > headBytes : end - head.readerIndex() > headBytes) {
                fail("an answer head longer than " + headBytes + " bytes");
                return;
            }
            if (end < 0) {
                ctx.read();
                return;
            }
            String text = head.toString(head.readerIndex(), end - head.readerIndex(), StandardCharsets.ISO_8859_1);
            int lineEnd = text.indexOf("\r\n");
            Matcher status = STATUS_LINE.matcher(lineEnd < 0 ? text : text.substring(0, lineEnd));
            if (!status.matches()) {
                fail("an answer that is not an HTTP/1.x status line");
                return;
            }
            int code = Integer.parseInt(status.group(1));
            if (code / 100 != 2) {
                String reason = status.group(2) == null ? "" : " " + status.group(2);
                settle(new Failed(
                        DenyCode.UPSTREAM_REFUSED,
                        "the upstream proxy " + proxy + " answered " + code + reason + " to CONNECT " + authority,
                        code));
                ctx.close();
                return;
            }
            ByteBuf leftover = head.retainedSlice(end + 4, head.writerIndex() - end - 4);
            settle(new Tunnel(ctx.channel(), proxy, authority, code, leftover));
            ctx.pipeline().remove(this);
        }

        void fail(String why) {
            if (settle(new Failed(DenyCode.UPSTREAM_FAILED, "the upstream proxy " + proxy + ": " + why, 0))) {
                ctx.close();
            }
        }

        private boolean settle(Outcome result) {
            if (timer != null) {
                timer.cancel(false);
            }
            return outcome.complete(result);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            head.release();
            if (timer != null) {
                timer.cancel(false);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail("the connection closed before an answer");
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause.toString());
        }
    }

    /** The index of the CRLF CRLF that ends the head, or -1. */
    private static int endOfHead(ByteBuf buffer) {
        for (int i = buffer.readerIndex(); i + 3 < buffer.writerIndex(); i++) {
            if (buffer.getByte(i) == '\r'
                    && buffer.getByte(i + 1) == '\n'
                    && buffer.getByte(i + 2) == '\r'
                    && buffer.getByte(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** What the CONNECTs name: each checked address in order, or the target's name with {@code sendNames}. */
    private List<String> authorities(Verdict.Allow allow) {
        if (sendsName(allow)) {
            return List.of(allow.target().orElseThrow().toString());
        }
        return allow.dial().stream().map(Target::text).toList();
    }

    private boolean sendsName(Verdict.Allow allow) {
        return config.sendNames() && allow.target().filter(Target::isName).isPresent();
    }

    /** The proxy's addresses, judged: all of them usable, or why not. */
    private sealed interface ProxyAddresses permits Judged, Unusable {}

    /** Every address of the proxy is outside the deny list. */
    private record Judged(List<InetSocketAddress> addresses) implements ProxyAddresses {}

    /**
     * The proxy's name did not resolve, an address of it is in the deny list ({@code
     * upstream-failed}), or the target is the proxy itself ({@code upstream-refused}).
     */
    private record Unusable(DenyCode code, String detail) implements ProxyAddresses {}

    /**
     * The proxy's addresses for {@code allow}, judged, and each on this host held by a trusted uid;
     * completes on {@code loop}, whatever thread resolved or checked them.
     */
    private CompletableFuture<ProxyAddresses> proxyAddresses(EventLoop loop, Verdict.Allow allow) {
        Target proxy = config.proxy();
        CompletableFuture<ProxyAddresses> judged = !proxy.isName()
                ? CompletableFuture.completedFuture(judge(List.of(proxy.literal()), allow))
                : resolver.resolve(proxy.host())
                        .thenApply(resolution -> resolution.outcome() == Resolution.Outcome.RESOLVED
                                ? judge(resolution.addresses(), allow)
                                : new Unusable(
                                        DenyCode.UPSTREAM_FAILED,
                                        "the upstream proxy's name " + proxy.host() + " did not resolve: "
                                                + resolution.detail()));
        CompletableFuture<ProxyAddresses> held = judged.thenCompose(this::held);
        return held.isDone() && loop.inEventLoop() ? held : held.thenApplyAsync(addresses -> addresses, loop);
    }

    /** {@code addresses}, when every one of them on this host is held by a trusted uid (R25). */
    private CompletableFuture<ProxyAddresses> held(ProxyAddresses addresses) {
        if (!(addresses instanceof Judged judged)) {
            return CompletableFuture.completedFuture(addresses);
        }
        List<CompletableFuture<Optional<String>>> checks = judged.addresses().stream()
                .map(address -> holders.refusal(PortHolders.Protocol.TCP, address))
                .toList();
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).thenApply(done -> {
            for (CompletableFuture<Optional<String>> check : checks) {
                Optional<String> refusal = check.join();
                if (refusal.isPresent()) {
                    return new Unusable(DenyCode.UPSTREAM_FAILED, refusal.get());
                }
            }
            return addresses;
        });
    }

    private ProxyAddresses judge(List<InetAddress> addresses, Verdict.Allow allow) {
        List<InetSocketAddress> judged = new ArrayList<>(addresses.size());
        for (InetAddress address : addresses) {
            Optional<Cidr> block = denyList.matchAnyForm(address);
            if (block.isPresent()) {
                return new Unusable(
                        DenyCode.UPSTREAM_FAILED,
                        "the upstream proxy's address " + Target.text(address) + " is in the deny list (" + block.get()
                                + ")");
            }
            for (InetSocketAddress target : allow.dial()) {
                if (target.getAddress().equals(address)) {
                    // Asked to reach itself, a proxy would do so from inside its own perimeter.
                    return new Unusable(
                            DenyCode.UPSTREAM_REFUSED,
                            "the target " + Target.text(target) + " is the upstream proxy itself");
                }
            }
            judged.add(new InetSocketAddress(address, config.proxy().port()));
        }
        return new Judged(judged);
    }

    /** A failure to reach the proxy is the proxy's; a client that left meanwhile stays {@code client-closed}. */
    private static Dialer.Outcome asUpstreamFailure(Dialer.Outcome outcome) {
        return outcome instanceof Dialer.Failed failed && failed.code() != DenyCode.CLIENT_CLOSED
                ? new Dialer.Failed(DenyCode.UPSTREAM_FAILED, "the upstream proxy: " + failed.detail())
                : outcome;
    }
}
