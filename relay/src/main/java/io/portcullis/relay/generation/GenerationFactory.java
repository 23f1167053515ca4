package io.portcullis.relay.generation;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.PortHolders;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.decide.OwnAddressBook;
import io.portcullis.relay.decide.PolicyJudge;
import io.portcullis.relay.door.DoorKind;
import io.portcullis.relay.forward.ForwardKind;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.OwnAddresses;
import io.portcullis.relay.policy.Rules;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.resolve.LocalServerCheck;
import io.portcullis.relay.resolve.NettyResolver;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.transport.Transport;
import io.portcullis.relay.tunnel.Dialer;
import io.portcullis.relay.tunnel.Tunnels;
import io.portcullis.relay.tunnel.UpstreamProxy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Builds a configuration generation from a host configuration: the owner check (unless given;
 * rebuilt because the installed add-ons and exceptions are part of the host configuration), the
 * judge over it (unless the embedder gave one), the upstream proxy (SPEC R25) when the host names
 * one, and the kinds with the generation's limits. The
 * door kind asks the same owner check who holds the gateway's port, so a relay given a judge
 * still builds the system's owner check for its doors.
 */
public final class GenerationFactory {
    /** How often this host's interface addresses and own names are read again (SPEC R15). */
    static final Duration OWN_ADDRESS_REFRESH = Duration.ofSeconds(5);

    /** The resolver of a generation whose every lookup is the relay's own: it resolves nothing. */
    private static final Resolver NO_NAMES = name -> CompletableFuture.completedFuture(
            Resolution.failed(Resolution.Outcome.FAILED, "this relay resolves no names (its judge is the embedder's)"));

    /**
     * A generation's DNS: the resolver, the same resolver timed (for the lookups of decisions),
     * the event loop it runs on, and this host's own addresses (their names resolved by it).
     */
    private record Dns(Resolver plain, Resolver timed, ScheduledExecutorService loop, OwnAddressBook own) {}

    private final Transport transport;
    private final Metrics metrics;
    private final WallProcesses wall;
    private final Judge givenJudge;
    private final OwnerCheck givenOwnerCheck;

    /** @param givenJudge and {@code givenOwnerCheck}: null for the real ones, built per generation */
    public GenerationFactory(
            Transport transport, Metrics metrics, WallProcesses wall, Judge givenJudge, OwnerCheck givenOwnerCheck) {
        this.transport = transport;
        this.metrics = metrics;
        this.wall = wall;
        this.givenJudge = givenJudge;
        this.givenOwnerCheck = givenOwnerCheck;
    }

    public Generation build(long number, HostConfig host) throws IOException {
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            OwnerCheck owner = Timed.ownerCheck(ownerCheck(host, owned), metrics.owner());
            PortHolders holders = OwnerChecks.portHolders(host.owner().cacheWindow());
            int relayUid = LocalServerCheck.processUid();
            boolean upstreamNamed = host.upstream()
                    .filter(upstream -> upstream.proxy().isName())
                    .isPresent();
            Optional<Dns> dns = givenJudge == null || upstreamNamed
                    ? Optional.of(dns(host, holders, relayUid, owned))
                    : Optional.empty();
            Judge judge = givenJudge != null ? givenJudge : policyJudge(host, dns.orElseThrow(), owner);
            HostConfig.Limits limits = host.limits();
            Dialer dialer = new Dialer(
                    transport, Math.toIntExact(limits.connectTimeout().toMillis()));
            Supplier<OwnAddresses> own = dns.<Supplier<OwnAddresses>>map(Dns::own)
                    .orElse(() -> new OwnAddresses(Set.copyOf(host.ownAddresses())));
            Optional<UpstreamProxy> upstream = host.upstream()
                    .map(config -> new UpstreamProxy(
                            config,
                            dns.map(Dns::plain).orElse(NO_NAMES),
                            host.denyList(),
                            new LocalServerCheck(
                                    LocalServerCheck.UPSTREAM_PROXY, holders, config.uids(), own, relayUid),
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

    /**
     * The relay's resolver for {@code host}. It runs on an NIO event loop of its own (its datagram
     * channel is NIO whatever the relay's transport); what it opens is added to {@code owned}, to
     * be closed with the generation.
     */
    private Dns dns(HostConfig host, PortHolders holders, int relayUid, List<AutoCloseable> owned) {
        EventLoopGroup dnsLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        owned.add(() -> dnsLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        // A DNS server on this host is checked before it is asked (R25), which needs this host's
        // own addresses, whose names are resolved by the same resolver: the book is read late.
        AtomicReference<OwnAddressBook> book = new AtomicReference<>();
        Supplier<OwnAddresses> own =
                () -> book.get() == null ? OwnAddresses.NONE : book.get().get();
        NettyResolver resolver = new NettyResolver(
                dnsLoop.next(),
                host.dns(),
                new LocalServerCheck(
                        LocalServerCheck.DNS_SERVER, holders, host.dns().uids(), own, relayUid));
        owned.add(resolver);
        OwnAddressBook ownBook = new OwnAddressBook(host, OwnAddressBook.Interfaces.jdk(), resolver);
        owned.add(ownBook);
        book.set(ownBook);
        return new Dns(resolver, Timed.resolver(resolver, metrics.dns()), dnsLoop.next(), ownBook);
    }

    /**
     * The policy's judge for {@code host} over {@code dns} and {@code owner} (timed, and the same
     * check the doors ask), once this host's own addresses were read.
     */
    private static Judge policyJudge(HostConfig host, Dns dns, OwnerCheck owner) throws IOException {
        OwnAddressBook own = dns.own();
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
        return new PolicyJudge(new Rules(host), dns.timed(), own, owner);
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
