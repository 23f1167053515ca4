package io.portcullis.relay.dnsclient;

import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.resolver.DefaultHostsFileEntriesResolver;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsErrorCauseException;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverChannelStrategy;
import io.netty.resolver.dns.DnsNameResolverException;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real resolver: netty-resolver-dns on one event loop, A and AAAA (IPv4 first), honouring
 * {@code /etc/hosts}, asking the configured servers or those of {@code /etc/resolv.conf}. Search
 * domains are not applied: a policy names an exact host, and {@code printer} must not become
 * {@code printer.corp.example} behind the owner's back. The
 * whole resolution, retries included, is bounded by the DNS timeout. Futures complete on the
 * event loop, so a channel on that loop may continue without a hop.
 *
 * <p>SPEC R9, every address of the whole answer: a name in {@code /etc/hosts} gets its entries
 * there and nothing from DNS. Otherwise the A and the AAAA question are asked apart, each from a
 * socket of its own, so from a fresh source port the kernel picks; a truncated UDP answer is asked
 * again over TCP, and when that fails the question fails ({@link TruncatedAnswerGuard}). When
 * either question fails or times out the name does, instead of being judged on the other family
 * alone; a family without records (NODATA) only adds no address.
 *
 * <p>SPEC R25: a server on this host is sent a query, over UDP or TCP, only once {@link
 * LocalServerCheck} found its port held by a trusted uid ({@link ServerGuard}); a refused server
 * gets nothing, the next one is asked, and a name that no server could be asked fails: {@link
 * Resolution.Status#UNREACHABLE} when nothing held their ports, as when a query could not be sent
 * (the network to the server unreachable).
 */
public final class NettyResolver implements Resolver, AutoCloseable {
    /** No hosts file for the DNS questions: {@link #hosts} was asked first. */
    private static final HostsFileEntriesResolver NO_HOSTS = (name, types) -> null;

    private final EventLoop loop;
    private final DefaultHostsFileEntriesResolver hosts = new DefaultHostsFileEntriesResolver();
    private final DnsNameResolver ipv4;
    private final DnsNameResolver ipv6;
    private final long timeoutMillis;

    /** A resolver whose servers on this host are checked with loopback as this host's only addresses. */
    public NettyResolver(EventLoop loop, HostConfig.Dns config) {
        this(loop, config, LocalServerCheck.dns(config));
    }

    /** @param servers decides whether a server may be sent a query, before it is sent one (R25) */
    public NettyResolver(EventLoop loop, HostConfig.Dns config, LocalServerCheck servers) {
        this.loop = loop;
        this.timeoutMillis = config.timeout().toMillis();
        ServerGuard guard = new ServerGuard(servers);
        this.ipv4 = build(loop, config, ResolvedAddressTypes.IPV4_ONLY, guard);
        this.ipv6 = build(loop, config, ResolvedAddressTypes.IPV6_ONLY, guard);
    }

    private static DnsNameResolver build(
            EventLoop loop, HostConfig.Dns config, ResolvedAddressTypes family, ServerGuard guard) {
        return new DnsNameResolverBuilder(loop)
                .datagramChannelFactory(() -> datagramChannel(guard))
                // A fresh socket, so a fresh kernel-chosen source port, for each resolution.
                .datagramChannelStrategy(DnsNameResolverChannelStrategy.ChannelPerResolution)
                // A truncated UDP answer is asked again over TCP (not on a UDP timeout: that is dns-timeout).
                .socketChannelFactory(() -> socketChannel(guard), false)
                .resolvedAddressTypes(family)
                .hostsFileEntriesResolver(NO_HOSTS)
                .queryTimeoutMillis(config.timeout().toMillis())
                .searchDomains(List.of())
                .nameServerProvider(
                        config.servers().isEmpty()
                                ? DnsServerAddressStreamProviders.platformDefault()
                                : new SequentialDnsServerAddressStreamProvider(config.servers()))
                .build();
    }

    private static NioDatagramChannel datagramChannel(ServerGuard guard) {
        NioDatagramChannel channel = new NioDatagramChannel();
        // First in the pipeline: the truncation guard sees each datagram before netty's DNS decoder
        // does, and the server guard each encoded query last, with its recipient.
        channel.pipeline().addLast(TruncatedAnswerGuard.INSTANCE, guard);
        return channel;
    }

    private static NioSocketChannel socketChannel(ServerGuard guard) {
        NioSocketChannel channel = new NioSocketChannel();
        channel.pipeline().addLast(guard);
        return channel;
    }

    @Override
    public CompletableFuture<Resolution> resolve(String name) {
        CompletableFuture<Resolution> result = new CompletableFuture<>();
        try {
            List<InetAddress> pinned = hosts.addresses(name, ResolvedAddressTypes.IPV4_PREFERRED);
            if (pinned != null && !pinned.isEmpty()) {
                result.complete(Resolution.resolved(pinned));
                return result;
            }
            Future<List<InetAddress>> a = ipv4.resolveAll(name);
            Future<List<InetAddress>> aaaa = ipv6.resolveAll(name);
            var timer = loop.schedule(
                    () -> {
                        if (result.complete(Resolution.failed(
                                Resolution.Status.TIMEOUT, name + " gave no answer within " + timeoutMillis + " ms"))) {
                            a.cancel(false);
                            aaaa.cancel(false);
                        }
                    },
                    timeoutMillis,
                    TimeUnit.MILLISECONDS);
            AtomicInteger pending = new AtomicInteger(2);
            GenericFutureListener<Future<List<InetAddress>>> both = done -> {
                if (pending.decrementAndGet() == 0) {
                    timer.cancel(false);
                    result.complete(combine(name, outcome(name, a), outcome(name, aaaa)));
                }
            };
            a.addListener(both);
            aaaa.addListener(both);
        } catch (RuntimeException e) {
            result.complete(Resolution.failed(Resolution.Status.FAILED, name + ": " + e));
        }
        return result;
    }

    private static Resolution outcome(String name, Future<List<InetAddress>> query) {
        return query.isSuccess() ? answer(name, query.getNow()) : failure(name, query.cause());
    }

    /** A timeout, then a failure, of either family is the whole name's; else both families' addresses, IPv4 first. */
    static Resolution combine(String name, Resolution v4, Resolution v6) {
        for (Resolution.Status worst :
                List.of(Resolution.Status.TIMEOUT, Resolution.Status.FAILED, Resolution.Status.UNREACHABLE)) {
            if (v4.status() == worst) {
                return v4;
            }
            if (v6.status() == worst) {
                return v6;
            }
        }
        List<InetAddress> all = new ArrayList<>(v4.addresses());
        all.addAll(v6.addresses());
        return all.isEmpty()
                ? Resolution.failed(Resolution.Status.EMPTY, name + " has no A or AAAA record")
                : Resolution.resolved(all);
    }

    private static Resolution answer(String name, List<InetAddress> addresses) {
        return addresses == null || addresses.isEmpty()
                ? Resolution.failed(Resolution.Status.EMPTY, name + " has no A or AAAA record")
                : Resolution.resolved(addresses);
    }

    /**
     * What a failed question means. Netty reports a name without records as an
     * UnknownHostException carrying no DNS error code, and a query it could not send (the network
     * to the server unreachable) as one caused by a {@link DnsNameResolverException} over the
     * socket's error: the two must not be told apart by the first alone, or an unreachable server
     * reads as a name without addresses.
     */
    static Resolution failure(String name, Throwable cause) {
        List<ServerGuard.Refused> refusals = new ArrayList<>();
        refused(cause, refusals);
        if (!refusals.isEmpty()) {
            // A distrusted server says more than an absent one.
            ServerGuard.Refused first =
                    refusals.stream().filter(r -> !r.absent()).findFirst().orElse(refusals.getFirst());
            return Resolution.failed(
                    first.absent() ? Resolution.Status.UNREACHABLE : Resolution.Status.FAILED,
                    name + ": " + first.getMessage());
        }
        boolean unknown = false;
        Optional<String> unsent = Optional.empty();
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof DnsNameResolverTimeoutException) {
                return Resolution.failed(Resolution.Status.TIMEOUT, name + " timed out: " + oneLine(t));
            }
            if (t instanceof DnsErrorCauseException error) {
                return Resolution.failed(Resolution.Status.FAILED, name + ": " + error.getCode());
            }
            if (t instanceof DnsNameResolverException query && unsent.isEmpty()) {
                unsent = unsent(query);
            }
            unknown |= t instanceof UnknownHostException;
        }
        if (unknown && hasTimeoutSuppressed(cause)) {
            return Resolution.failed(Resolution.Status.TIMEOUT, name + " timed out");
        }
        if (unsent.isPresent()) {
            return Resolution.failed(Resolution.Status.UNREACHABLE, name + ": " + unsent.get());
        }
        return unknown
                ? Resolution.failed(Resolution.Status.EMPTY, name + " has no A or AAAA record")
                : Resolution.failed(Resolution.Status.FAILED, name + ": " + oneLine(cause));
    }

    /** A query that never left: the socket's own error under netty's, with the server it was for. */
    private static Optional<String> unsent(DnsNameResolverException query) {
        Throwable socket = query.getCause();
        if (!(socket instanceof IOException) || socket instanceof DnsNameResolverException) {
            return Optional.empty();
        }
        return Optional.of(
                "the DNS server " + Target.text(query.remoteAddress()) + " could not be reached: " + oneLine(socket));
    }

    /** Every server refused before it was asked ({@link ServerGuard}), anywhere in the failure. */
    private static void refused(Throwable cause, List<ServerGuard.Refused> into) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof ServerGuard.Refused refused) {
                into.add(refused);
            }
            for (Throwable s : t.getSuppressed()) {
                refused(s, into);
            }
        }
    }

    private static boolean hasTimeoutSuppressed(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            for (Throwable s : t.getSuppressed()) {
                if (s instanceof DnsNameResolverTimeoutException) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String oneLine(Throwable t) {
        String message = String.valueOf(t.getMessage());
        return message.replaceAll("[\\r\\n]+", " ");
    }

    @Override
    public void close() {
        ipv4.close();
        ipv6.close();
    }
}
