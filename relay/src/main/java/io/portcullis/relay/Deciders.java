package io.portcullis.relay;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.relay.decide.Decider;
import io.portcullis.relay.decide.OwnAddressBook;
import io.portcullis.relay.observe.Histogram;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Rules;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.NettyResolver;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Builds the real judge: the policy's decider over netty DNS and this host's own addresses. */
final class Deciders {
    /** How often this host's interface addresses and own names are read again (SPEC R15). */
    static final Duration OWN_ADDRESS_REFRESH = Duration.ofSeconds(5);

    private Deciders() {}

    /** The resolver of a generation whose every lookup is the relay's own: it resolves nothing. */
    static final Resolver NO_NAMES = name -> CompletableFuture.completedFuture(
            Resolution.failed(Resolution.Outcome.FAILED, "this relay resolves no names (its judge is the embedder's)"));

    /**
     * A generation's DNS: the resolver, the same resolver timed (for the lookups of decisions),
     * and the event loop it runs on.
     */
    record Dns(Resolver plain, Resolver timed, ScheduledExecutorService loop) {}

    /**
     * The relay's resolver for {@code host}. It runs on an NIO event loop of its own (its datagram
     * channel is NIO whatever the relay's transport); what it opens is added to {@code owned}, to
     * be closed with the relay.
     */
    static Dns dns(HostConfig host, List<AutoCloseable> owned, Metrics metrics) {
        EventLoopGroup dnsLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        owned.add(() -> dnsLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        NettyResolver resolver = new NettyResolver(dnsLoop.next(), host.dns());
        owned.add(resolver);
        return new Dns(resolver, timedResolver(resolver, metrics.dns()), dnsLoop.next());
    }

    /**
     * The decider for {@code host} over {@code dns} and {@code ownerCheck} (timed by the caller,
     * who passes the same check to the doors); what it opens is added to {@code owned}.
     */
    static Judge real(HostConfig host, Dns dns, OwnerCheck ownerCheck, List<AutoCloseable> owned) throws IOException {
        OwnAddressBook own = new OwnAddressBook(host, OwnAddressBook.Interfaces.jdk(), dns.plain());
        owned.add(own);
        long bound = host.dns().timeout().toMillis() * (host.ownNames().size() + 2) + 5000;
        try {
            own.refresh().get(bound, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("this host's own addresses could not be read: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading this host's own addresses", e);
        }
        own.refreshEvery(dns.loop(), OWN_ADDRESS_REFRESH);
        Decider decider = new Decider(new Rules(host), dns.timed(), own, ownerCheck);
        return new Judge() {
            @Override
            public CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request) {
                return decider.decide(spawn, request);
            }

            @Override
            public CompletableFuture<Optional<Verdict>> shadow(SpawnPolicy shadow, Request request, Verdict verdict) {
                return decider.decideShadow(shadow, request, verdict);
            }
        };
    }

    private static Resolver timedResolver(Resolver resolver, Histogram latency) {
        return name -> {
            long start = System.nanoTime();
            return resolver.resolve(name).whenComplete((answer, error) -> latency.observe(System.nanoTime() - start));
        };
    }

    /** Times {@code check}, passing its Docker networks on: a lambda would know none (R32). */
    static OwnerCheck timedCheck(OwnerCheck check, Histogram latency) {
        return new OwnerCheck() {
            @Override
            public CompletableFuture<OwnerAnswer> check(OwnerQuery query) {
                long start = System.nanoTime();
                return check.check(query).whenComplete((answer, error) -> latency.observe(System.nanoTime() - start));
            }

            @Override
            public DockerNetworks dockerNetworks() {
                return check.dockerNetworks();
            }
        };
    }
}
