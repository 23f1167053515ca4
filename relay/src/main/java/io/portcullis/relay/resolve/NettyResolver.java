package io.portcullis.relay.resolve;

import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsErrorCauseException;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverChannelStrategy;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.concurrent.Future;
import io.portcullis.relay.policy.HostConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real resolver: netty-resolver-dns on one event loop, A and AAAA (IPv4 first), honouring
 * {@code /etc/hosts}, asking the configured servers or those of {@code /etc/resolv.conf}. Search
 * domains are not applied: a policy names an exact host, and {@code printer} must not become
 * {@code printer.corp.example} behind the owner's back. The
 * whole resolution, retries included, is bounded by the DNS timeout. Futures complete on the
 * event loop, so a channel on that loop may continue without a hop.
 *
 * <p>SPEC R9: each resolution sends its queries from a socket of its own, so from a fresh source
 * port the kernel picks; a truncated UDP answer is asked again over TCP, and when that fails the
 * truncated part is never judged as if it were the whole answer ({@link TruncatedAnswerGuard}).
 */
public final class NettyResolver implements Resolver, AutoCloseable {
    private final EventLoop loop;
    private final DnsNameResolver dns;
    private final long timeoutMillis;

    public NettyResolver(EventLoop loop, HostConfig.Dns config) {
        this.loop = loop;
        this.timeoutMillis = config.timeout().toMillis();
        DnsNameResolverBuilder builder = new DnsNameResolverBuilder(loop)
                .datagramChannelFactory(NettyResolver::datagramChannel)
                // A fresh socket, so a fresh kernel-chosen source port, for each resolution.
                .datagramChannelStrategy(DnsNameResolverChannelStrategy.ChannelPerResolution)
                // A truncated UDP answer is asked again over TCP (not on a UDP timeout: that is dns-timeout).
                .socketChannelType(NioSocketChannel.class, false)
                .resolvedAddressTypes(ResolvedAddressTypes.IPV4_PREFERRED)
                .hostsFileEntriesResolver(HostsFileEntriesResolver.DEFAULT)
                .queryTimeoutMillis(timeoutMillis)
                .searchDomains(List.of())
                .nameServerProvider(
                        config.servers().isEmpty()
                                ? DnsServerAddressStreamProviders.platformDefault()
                                : new SequentialDnsServerAddressStreamProvider(config.servers()));
        this.dns = builder.build();
    }

    private static NioDatagramChannel datagramChannel() {
        NioDatagramChannel channel = new NioDatagramChannel();
        // First in the pipeline: it sees each datagram before netty's DNS decoder does.
        channel.pipeline().addLast(TruncatedAnswerGuard.INSTANCE);
        return channel;
    }

    @Override
    public CompletableFuture<Resolution> resolve(String name) {
        CompletableFuture<Resolution> result = new CompletableFuture<>();
        try {
            Future<List<InetAddress>> query = dns.resolveAll(name);
            var timer = loop.schedule(
                    () -> {
                        if (result.complete(Resolution.failed(
                                Resolution.Outcome.TIMEOUT,
                                name + " gave no answer within " + timeoutMillis + " ms"))) {
                            query.cancel(false);
                        }
                    },
                    timeoutMillis,
                    TimeUnit.MILLISECONDS);
            query.addListener(done -> {
                timer.cancel(false);
                result.complete(done.isSuccess() ? answer(name, query.getNow()) : failure(name, done.cause()));
            });
        } catch (RuntimeException e) {
            result.complete(Resolution.failed(Resolution.Outcome.FAILED, name + ": " + e));
        }
        return result;
    }

    private static Resolution answer(String name, List<InetAddress> addresses) {
        return addresses == null || addresses.isEmpty()
                ? Resolution.failed(Resolution.Outcome.EMPTY, name + " has no A or AAAA record")
                : Resolution.resolved(addresses);
    }

    /** Netty reports a name without records as an UnknownHostException carrying no DNS error code. */
    static Resolution failure(String name, Throwable cause) {
        boolean unknown = false;
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof DnsNameResolverTimeoutException) {
                return Resolution.failed(Resolution.Outcome.TIMEOUT, name + " timed out: " + oneLine(t));
            }
            if (t instanceof DnsErrorCauseException error) {
                return Resolution.failed(Resolution.Outcome.FAILED, name + ": " + error.getCode());
            }
            unknown |= t instanceof UnknownHostException;
        }
        if (unknown && hasTimeoutSuppressed(cause)) {
            return Resolution.failed(Resolution.Outcome.TIMEOUT, name + " timed out");
        }
        return unknown
                ? Resolution.failed(Resolution.Outcome.EMPTY, name + " has no A or AAAA record")
                : Resolution.failed(Resolution.Outcome.FAILED, name + ": " + oneLine(cause));
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
        dns.close();
    }
}
