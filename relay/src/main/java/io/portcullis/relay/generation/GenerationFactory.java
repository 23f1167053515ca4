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
import io.portcullis.relay.dnsclient.LocalServerCheck;
import io.portcullis.relay.dnsclient.NettyResolver;
import io.portcullis.relay.door.DoorKind;
import io.portcullis.relay.forward.ForwardKind;
import io.portcullis.relay.http.Exchange;
import io.portcullis.relay.judge.OwnAddressBook;
import io.portcullis.relay.judge.PolicyJudges;
import io.portcullis.relay.judge.Timed;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.proxy.ProxyKind;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import io.portcullis.relay.rules.UpstreamRoute;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Builds a configuration generation from a host configuration: the owner check (unless given), the
 * judge over it (unless the embedder gave one), the upstream proxy (SPEC R25) when the host names
 * one, and the kinds with the generation's limits. The door kind asks the same owner check who
 * holds the gateway's port, so a relay given a judge still builds the system's owner check for its
 * doors.
 *
 * <p>Generations share what a reload does not change (issue 26 class 8): one DNS event loop for the
 * relay, the resolver while the DNS settings (and the files they read) are unchanged, this host's
 * own addresses while those and the resolver are, and the owner check (its executor, Docker view
 * and cache) while the owner part is. A generation holds a lease on each ({@link Shared}), let go
 * when it is retired, so reloads back to back that change none of them cost nothing that stays.
 */
public final class GenerationFactory implements AutoCloseable {
    /** How often this host's interface addresses and own names are read again (SPEC R15). */
    static final Duration OWN_ADDRESS_REFRESH = Duration.ofSeconds(5);

    /**
     * How long a start or a reload waits for the own names' first lookups: a silent DNS server
     * would otherwise hold it for the whole DNS timeout, with no word (issue 25). Past it the own
     * names count as unresolved, which is said, until their lookups end.
     */
    static final Duration OWN_NAMES_WAIT = Duration.ofSeconds(1);

    /** The resolver of a generation whose every lookup is the relay's own: it resolves nothing. */
    private static final Resolver NO_NAMES = name -> CompletableFuture.completedFuture(
            Resolution.failed(Resolution.Status.FAILED, "this relay resolves no names (its judge is the embedder's)"));

    /**
     * A generation's DNS: the resolver, the same resolver timed (for the lookups of decisions),
     * and the event loop it runs on.
     */
    private record Dns(Resolver plain, Resolver timed, ScheduledExecutorService loop) {}

    private final Transport transport;
    private final Metrics metrics;
    private final WallProcesses wall;
    private final Optional<Judge> givenJudge;
    private final Optional<OwnerCheck> givenOwnerCheck;

    /** The relay's one DNS event loop, made on first need; guarded by this. */
    private @Nullable EventLoopGroup dnsLoop;

    /** This process's uid, which a local DNS server or upstream proxy may run as by default (R25). */
    private final int relayUid = LocalServerCheck.processUid();

    /**
     * The newest own-address book: a DNS server on this host is checked before it is asked (R25),
     * which needs this host's own addresses, whose names that same resolver looks up. The book is
     * published as soon as it is made (it holds the interface addresses before the names resolve),
     * and every resolver reads the newest one.
     */
    private final AtomicReference<OwnAddressBook> newestOwn = new AtomicReference<>();

    private final Shared<Keys.ResolverKey, NettyResolver> resolvers = new Shared<>(this::resolver);
    private final Shared<Keys.OwnKey, OwnAddressBook> ownAddresses = new Shared<>(this::ownAddresses);
    private final Shared<Keys.OwnerKey, ManagedOwnerCheck> ownerChecks = new Shared<>(this::ownerCheck);

    /** @param givenJudge and {@code givenOwnerCheck}: empty for the real ones, built per generation */
    public GenerationFactory(
            Transport transport,
            Metrics metrics,
            WallProcesses wall,
            Optional<Judge> givenJudge,
            Optional<OwnerCheck> givenOwnerCheck) {
        this.transport = transport;
        this.metrics = metrics;
        this.wall = wall;
        this.givenJudge = givenJudge;
        this.givenOwnerCheck = givenOwnerCheck;
    }

    public synchronized Generation build(long number, HostConfig host) throws IOException {
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            OwnerCheck owner = Timed.ownerCheck(ownerCheck(host, owned), metrics.owner());
            PortHolders holders = OwnerChecks.portHolders(host.owner().cacheWindow());
            boolean upstreamNamed = host.upstream()
                    .filter(upstream -> upstream.proxy().isName())
                    .isPresent();
            Optional<Dns> dns =
                    givenJudge.isEmpty() || upstreamNamed ? Optional.of(dns(host, owned)) : Optional.empty();
            Judge judge =
                    givenJudge.isPresent() ? givenJudge.get() : policyJudge(host, dns.orElseThrow(), owner, owned);
            HostConfig.Limits limits = host.limits();
            Dialer dialer = new Dialer(
                    transport, Math.toIntExact(limits.connectTimeout().toMillis()));
            Supplier<OwnAddresses> own =
                    givenJudge.isEmpty() ? this::ownAddresses : () -> new OwnAddresses(Set.copyOf(host.ownAddresses()));
            Optional<UpstreamProxy> upstream = host.upstream()
                    .map(config -> new UpstreamProxy(
                            new UpstreamRoute(config, new Rules(host)),
                            dns.map(Dns::plain).orElse(NO_NAMES),
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
     * The resolver for {@code host}, shared with the generations before while its DNS settings and
     * the files they read are unchanged. It runs on the relay's one NIO event loop (its datagram
     * channel is NIO whatever the relay's transport); the lease is added to {@code owned}.
     */
    private Dns dns(HostConfig host, List<AutoCloseable> owned) throws IOException {
        Shared.Lease<NettyResolver> lease =
                resolvers.lease(Keys.ResolverKey.of(host.dns(), host.owner().cacheWindow()));
        owned.add(lease);
        NettyResolver resolver = lease.get();
        return new Dns(
                resolver, Timed.resolver(resolver, metrics.dns()), dnsLoop().next());
    }

    private synchronized EventLoopGroup dnsLoop() {
        if (dnsLoop == null) {
            dnsLoop = new MultiThreadIoEventLoopGroup(
                    1, Thread.ofPlatform().name("dns-", 1).daemon(true).factory(), NioIoHandler.newFactory());
        }
        return dnsLoop;
    }

    private NettyResolver resolver(Keys.ResolverKey key) {
        return PolicyJudges.resolver(
                dnsLoop().next(), key.dns(), OwnerChecks.portHolders(key.holderWindow()), this::ownAddresses, relayUid);
    }

    /** This host's own addresses as the newest book has them; none before the first book. */
    private OwnAddresses ownAddresses() {
        OwnAddressBook book = newestOwn.get();
        return book == null ? OwnAddresses.NONE : book.get();
    }

    /**
     * The policy's judge for {@code host} over {@code dns} and {@code owner} (timed, and the same
     * check the doors ask), with this host's own addresses (read before a new book is used); the
     * leases are added to {@code owned}.
     */
    private Judge policyJudge(HostConfig host, Dns dns, OwnerCheck owner, List<AutoCloseable> owned)
            throws IOException {
        Shared.Lease<OwnAddressBook> own = ownAddresses.lease(new Keys.OwnKey(host, dns.plain(), dns.loop()));
        owned.add(own);
        return PolicyJudges.judge(host, dns.timed(), own.get(), owner);
    }

    /**
     * This host's own addresses for {@code key}: the interfaces read now, the own names looked up
     * for at most {@link #OWN_NAMES_WAIT}, then all read again every {@link #OWN_ADDRESS_REFRESH}.
     */
    private OwnAddressBook ownAddresses(Keys.OwnKey key) throws IOException {
        OwnAddressBook own = PolicyJudges.ownAddresses(key.host(), key.resolver(), newestOwn::set, OWN_NAMES_WAIT);
        own.refreshEvery(key.loop(), OWN_ADDRESS_REFRESH);
        return own;
    }

    /** The owner check for {@code host}: the given one, else the system's, shared while the owner part is unchanged. */
    private OwnerCheck ownerCheck(HostConfig host, List<AutoCloseable> owned) throws IOException {
        if (givenOwnerCheck.isPresent()) {
            return givenOwnerCheck.get();
        }
        Shared.Lease<ManagedOwnerCheck> lease = ownerChecks.lease(Keys.OwnerKey.of(host.owner()));
        owned.add(lease);
        return lease.get();
    }

    private ManagedOwnerCheck ownerCheck(Keys.OwnerKey key) {
        return OwnerChecks.system(key.config(), wall);
    }

    /** Lets go of the shared parts and stops the DNS event loop, once every generation was retired. */
    @Override
    public synchronized void close() {
        ownerChecks.close();
        ownAddresses.close();
        resolvers.close();
        if (dnsLoop != null) {
            dnsLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            dnsLoop = null;
        }
    }
}
