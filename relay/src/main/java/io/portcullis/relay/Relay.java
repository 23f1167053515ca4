package io.portcullis.relay;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.accept.Budgets;
import io.portcullis.relay.accept.Descriptors;
import io.portcullis.relay.accept.RelayParts;
import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.decisionlog.JsonLineSink;
import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.generation.GenerationFactory;
import io.portcullis.relay.generation.Retirement;
import io.portcullis.relay.handoff.BoundSpawn;
import io.portcullis.relay.handoff.HandoffRefused;
import io.portcullis.relay.handoff.SpawnBinding;
import io.portcullis.relay.handoff.StaleSpawns;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Metrics;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay engine (SPEC R3-R6): one instance hosts many spawns and shares between them its event
 * loops, its resolver and DNS cache, the policy's judge with the owner check, the connection budget of
 * the whole relay and the decision log. Each {@link #open(SpawnPolicy)} gives a spawn a fresh
 * directory with one unix socket; nothing listens on TCP.
 *
 * <pre>{@code
 * try (Relay relay = Relay.start(host)) {
 *     SpawnHandle spawn = relay.open(policy);
 *     // start the entry with spawn.socket() and spawn.proxyPort()
 * }
 * }</pre>
 */
public final class Relay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    private static final long DRAIN_POLL_MILLIS = 50;

    private final EventLoopGroup loops;
    private final Transport transport;
    private final RelayParts shared;
    private final SpawnBinding binding;
    private final Metrics metrics;
    private final Descriptors descriptors;
    private final int descriptorSpawns;
    /** The descriptor warning last said; guarded by this. */
    private Optional<String> saidShortfall = Optional.empty();

    private final GenerationFactory factory;
    private final List<AutoCloseable> owned;
    private final Retirement retirement = new Retirement();
    private final Map<String, SpawnHandle> spawns = new ConcurrentHashMap<>();
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean draining;
    private final ExecutorService handoffs = Executors.newCachedThreadPool(
            Thread.ofPlatform().name("handoff-", 1).daemon(true).factory());

    private Relay(
            Builder builder,
            Transport transport,
            EventLoopGroup loops,
            Path parent,
            Generation first,
            GenerationFactory factory,
            Descriptors descriptors,
            DecisionSink decisions,
            List<AutoCloseable> owned) {
        this.loops = loops;
        this.transport = transport;
        this.metrics = builder.metrics;
        this.factory = factory;
        this.descriptors = descriptors;
        this.descriptorSpawns = builder.descriptorSpawns;
        this.owned = owned;
        this.shared = new RelayParts(
                new AtomicReference<>(first),
                new Budgets(descriptors.connections()),
                metrics.counting(decisions),
                builder.clock,
                new AtomicLong(),
                spawns::size);
        this.binding = new SpawnBinding(parent, transport, loops, shared, metrics, handoffs);
    }

    /** A relay with every default for {@code host}: see {@link Builder}. */
    public static Relay start(HostConfig host) throws IOException {
        return builder(host).start();
    }

    public static Builder builder(HostConfig host) {
        return new Builder(host);
    }

    /**
     * Opens a spawn: a fresh directory (0700) under the relay's parent directory, a unix socket in
     * it (0600), listening before this returns.
     *
     * @throws IllegalStateException when a spawn with the same id is open, or the relay is draining or closed
     */
    public SpawnHandle open(SpawnPolicy policy) throws IOException {
        Objects.requireNonNull(policy, "policy");
        if (!accepting()) {
            throw new IllegalStateException(
                    "relay: " + (draining ? "draining" : "closed") + " (expected: open, not draining)");
        }
        if (!ids.add(policy.id())) {
            throw new IllegalStateException("spawn " + policy.id() + ": already open (expected: a new id)");
        }
        try {
            SpawnHandle handle = bind(policy);
            spawns.put(policy.id(), handle);
            return handle;
        } catch (IOException | RuntimeException e) {
            ids.remove(policy.id());
            throw e;
        }
    }

    private SpawnHandle bind(SpawnPolicy policy) throws IOException {
        return new SpawnHandle(binding.bind(policy, this::closed));
    }

    private void closed(BoundSpawn closed) {
        spawns.computeIfPresent(closed.id(), (id, handle) -> handle.views(closed) ? null : handle);
        ids.remove(closed.id());
    }

    /**
     * Serves {@code policy}'s spawn again on the listening sockets that another relay carried here,
     * or that this host kept while the relay restarted (SPEC R44): there is no spawn socket, and the
     * spawn serves before this returns ({@link SpawnHandle.State#SERVING}). The sockets are checked
     * as a hand-over's are (SPEC R4): each a listening TCP socket (UDP for DNS) bound to exactly the
     * loopback address and port it claims, made in the network namespace the carried origin names,
     * and together exactly the sockets the policy calls for. The door token is the one the policy's
     * token file holds already, which the spawn's program read: it is kept, never minted again.
     * Takes the descriptors: refused, every one is closed and the token file stays as it was.
     * Not from an event loop.
     *
     * @param carried what the other relay's {@link SpawnHandle#carried()} gave, with descriptors of
     *     this process (received over SCM_RIGHTS, or inherited)
     * @throws IOException when the sockets or the token are not the spawn's: a {@code HandoffRefused}
     *     whose message starts {@code bad-handoff: } and says why
     * @throws IllegalStateException when a spawn with the same id is open, or the relay is draining or closed
     */
    public SpawnHandle restore(SpawnPolicy policy, Receiver.Carried carried) throws IOException {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(carried, "carried");
        if (!accepting() || !ids.add(policy.id())) {
            carried.sockets().forEach(held -> Posix.closeQuietly(held.fd()));
            throw accepting()
                    ? new IllegalStateException("spawn " + policy.id() + ": already open (expected: a new id)")
                    : new IllegalStateException(
                            "relay: " + (draining ? "draining" : "closed") + " (expected: open, not draining)");
        }
        try {
            SpawnHandle handle = new SpawnHandle(binding.restore(policy, carried, this::closed));
            spawns.put(policy.id(), handle);
            return handle;
        } catch (HandoffRefused | RuntimeException e) {
            ids.remove(policy.id());
            throw e;
        }
    }

    /** The open spawns. */
    public List<SpawnHandle> spawns() {
        return List.copyOf(spawns.values());
    }

    /** Whether the relay takes new spawns and connections: not draining and not closed. */
    public boolean accepting() {
        return !draining && !closed.get();
    }

    /** Whether {@link #drain} has begun. */
    public boolean draining() {
        return draining;
    }

    /**
     * Completes once every event loop of the relay has run a task (the process's health); fails
     * when a loop has shut down.
     */
    public CompletableFuture<Void> eventLoopsAnswer() {
        List<CompletableFuture<Void>> ran = new ArrayList<>();
        for (EventExecutor loop : loops) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            try {
                loop.execute(() -> done.complete(null));
            } catch (RejectedExecutionException e) {
                done.completeExceptionally(e);
            }
            ran.add(done);
        }
        return CompletableFuture.allOf(ran.toArray(CompletableFuture[]::new));
    }

    /** The transport in use: {@code epoll} or {@code nio}. */
    public String transport() {
        return transport.name();
    }

    /**
     * Puts {@code host} into effect for new connections (SPEC R2): its deny list, own names and
     * addresses, DNS servers, owner settings and limits. Open connections keep the generation they
     * started with. When the new generation cannot be built (say its own names do not resolve),
     * the current one stays and this throws.
     *
     * @return the new generation's number
     */
    public synchronized long reload(HostConfig host) throws IOException {
        Objects.requireNonNull(host, "host");
        if (closed.get()) {
            throw new IllegalStateException("relay: closed (expected: open)");
        }
        Generation old = shared.current().get();
        Generation next;
        try {
            next = factory.build(old.number() + 1, host);
        } catch (IOException | RuntimeException e) {
            metrics.reloaded(false);
            throw e;
        }
        shared.current().set(next);
        metrics.reloaded(true);
        warnDescriptors(next.limits());
        retirement.retire(
                old, host.dns().timeout().multipliedBy(2).plus(old.limits().connectTimeout()));
        log.info("host configuration generation {} in effect", next.number());
        return next.number();
    }

    /**
     * Warns when the descriptor limit cannot meet the budgets that must be met ({@link
     * Builder#descriptorsFor}): once, at start, and again at a reload only when the figures
     * changed, so a reload that changes nothing of them says nothing.
     */
    private synchronized void warnDescriptors(HostConfig.Limits limits) {
        Optional<String> shortfall = descriptors.shortfall(limits, descriptorSpawns);
        if (shortfall.isPresent() && !shortfall.equals(saidShortfall)) {
            log.atWarn()
                    .addKeyValue("descriptorLimit", descriptors.limit())
                    .addKeyValue("connections", descriptors.connections())
                    .log(shortfall.get());
        }
        saidShortfall = shortfall;
    }

    /**
     * Opens the decision log again by its name, for log rotation (SIGHUP, SPEC R17): lines not yet
     * written go to the new file. A log on standard error, or a sink given to the builder that
     * keeps no file, is left as it is.
     */
    public void reopenLog() {
        shared.decisions().reopen();
    }

    /** The host configuration generation that new connections use: 1 at start, one more per reload. */
    public long generation() {
        return shared.current().get().number();
    }

    /** The host configuration that new connections use. */
    public HostConfig host() {
        return shared.current().get().host();
    }

    /** The open spawn with {@code id}, if any. */
    public Optional<SpawnHandle> spawn(String id) {
        return Optional.ofNullable(spawns.get(Objects.requireNonNull(id, "id")));
    }

    /** The relay's counters and histograms. */
    public Metrics metrics() {
        return metrics;
    }

    /** The relay's metrics in the Prometheus text format (SPEC R17). */
    public String metricsText() {
        return metrics.text(gauges());
    }

    /**
     * The relay's metrics for a Prometheus registry that serves them with others (the process's
     * and the JVM's); read at each scrape.
     */
    public MultiCollector metricsCollector() {
        return metrics.collector(gauges());
    }

    private Metrics.Gauges gauges() {
        return new Metrics.Gauges() {
            @Override
            public Map<String, Integer> openConnections() {
                Map<String, Integer> open = new TreeMap<>();
                spawns.values().forEach(spawn -> open.put(spawn.id(), spawn.openConnections()));
                return open;
            }

            @Override
            public long generation() {
                return Relay.this.generation();
            }
        };
    }

    /**
     * Drains the relay (SIGTERM, SPEC R43): from now on it opens no spawn, and every spawn stops
     * accepting (its spawn socket and its handed-over sockets close, so a new connection in its
     * namespace is refused at once) while the open connections go on. Returns once none is open,
     * or when {@code grace} has passed; {@link #close()} closes what is left. Not from an event loop.
     *
     * @return the number of connections still open when it returned
     */
    public int drain(Duration grace) throws InterruptedException {
        Objects.requireNonNull(grace, "grace");
        draining = true;
        spawns().forEach(SpawnHandle::stopAccepting);
        int open = openConnections();
        log.atInfo()
                .addKeyValue("openConnections", open)
                .addKeyValue("drainSeconds", grace.toSeconds())
                .log("draining: new connections are refused, open ones have until the drain ends");
        long deadline = System.nanoTime() + grace.toNanos();
        while (open > 0 && System.nanoTime() < deadline) {
            Thread.sleep(Math.min(DRAIN_POLL_MILLIS, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            open = openConnections();
        }
        log.atInfo().addKeyValue("openConnections", open).log("drained");
        return open;
    }

    private int openConnections() {
        return spawns.values().stream().mapToInt(SpawnHandle::openConnections).sum();
    }

    /**
     * Closes every spawn (removing their directories), then the event loops and what the relay
     * built for itself. Not from an event loop thread.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<RuntimeException> failures = new ArrayList<>();
        for (SpawnHandle handle : spawns()) {
            try {
                handle.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        handoffs.shutdownNow();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        retirement.closeAll(failures);
        // Closed in reverse: the generation's leases, then the factory's own hold on the shared parts.
        List<AutoCloseable> resources = new ArrayList<>(List.of(factory));
        resources.addAll(shared.current().get().owned());
        resources.addAll(owned);
        for (AutoCloseable resource : resources.reversed()) {
            try {
                resource.close();
            } catch (Exception e) {
                failures.add(e instanceof RuntimeException r ? r : new UncheckedIOException(new IOException(e)));
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.getFirst();
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * How to build a relay. Every part has a real default: the best transport, one event loop
     * thread per core, the system temporary directory as parent, the decision log of the
     * host configuration, this host's owner check built from the host configuration's owner part
     * (owned and closed by the relay, fed with the relay's wall processes), and the policy's
     * policy judge over netty DNS.
     */
    public static final class Builder {
        private final HostConfig host;
        private Optional<Transport> transport = Optional.empty();
        private Optional<Path> parent = Optional.empty();
        private Optional<DecisionSink> decisions = Optional.empty();
        private Optional<OwnerCheck> ownerCheck = Optional.empty();
        private Optional<WallProcesses> wall = Optional.empty();
        private Optional<Judge> judge = Optional.empty();
        private InstantSource clock = InstantSource.system();
        private int threads = Runtime.getRuntime().availableProcessors();
        private int descriptorSpawns;
        private Metrics metrics = new Metrics();

        private Builder(HostConfig host) {
            this.host = Objects.requireNonNull(host, "host");
        }

        /** The parent of the spawns' directories; it must exist. */
        public Builder directory(Path parent) {
            this.parent = Optional.of(parent);
            return this;
        }

        /** Where decision records go instead of the host configuration's log. */
        public Builder decisions(DecisionSink sink) {
            this.decisions = Optional.of(sink);
            return this;
        }

        /**
         * The owner check for targets on this host, instead of the system's (kept open by the caller);
         * {@link OwnerCheck#failClosed} refuses every such target with {@code owner-error}.
         */
        public Builder ownerCheck(OwnerCheck check) {
            this.ownerCheck = Optional.of(check);
            return this;
        }

        /** The set that collects the pids of the wall's processes (peers of spawn sockets). */
        public Builder wallProcesses(WallProcesses processes) {
            this.wall = Optional.of(processes);
            return this;
        }

        /** Decides connections instead of the policy's judge (tests, embedding). */
        public Builder judge(Judge judge) {
            this.judge = Optional.of(judge);
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = Optional.of(transport);
            return this;
        }

        /** The number of event loop threads shared by every spawn; default: one per core. */
        public Builder threads(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("threads: " + count + " (expected: >= 1)");
            }
            this.threads = count;
            return this;
        }

        /**
         * Judges the descriptor limit against this many spawns' budgets ({@code
         * limits.spawnConnections} each) instead of the relay's whole budget ({@code
         * limits.relayConnections}, the default, 0): for a relay that knows how many spawns it
         * serves, such as {@code run}'s one, the relay's default budget not being reachable is
         * nobody's concern, and is not warned about.
         */
        public Builder descriptorsFor(int spawns) {
            if (spawns < 0) {
                throw new IllegalArgumentException("spawns: " + spawns + " (expected: >= 0)");
            }
            this.descriptorSpawns = spawns;
            return this;
        }

        /** Where the relay counts connections and latencies; a fresh one by default. */
        public Builder metrics(Metrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Relay start() throws IOException {
            List<AutoCloseable> owned = new ArrayList<>();
            Descriptors descriptors = Descriptors.raised();
            Transport transport = this.transport.orElseGet(Transport::best);
            EventLoopGroup loops = new MultiThreadIoEventLoopGroup(threads, transport.io());
            owned.add(() -> loops.shutdownGracefully(0, 1, TimeUnit.SECONDS));
            try {
                Path parent = this.parent.orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir")));
                StaleSpawns.sweep(parent);
                WallProcesses wall = this.wall.orElseGet(WallProcesses::withSelf);
                DecisionSink decisions;
                if (this.decisions.isPresent()) {
                    decisions = this.decisions.get();
                } else {
                    JsonLineSink sink = host.log().file().isPresent()
                            ? JsonLineSink.toFile(host.log().file().get())
                            : JsonLineSink.toStandardError();
                    owned.add(sink);
                    decisions = sink;
                }
                GenerationFactory factory = new GenerationFactory(transport, metrics, wall, judge, ownerCheck);
                Generation first;
                try {
                    first = factory.build(1, host);
                } catch (IOException | RuntimeException e) {
                    factory.close();
                    throw e;
                }
                // From here the relay shuts its loops down itself.
                owned.removeFirst();
                Relay relay = new Relay(this, transport, loops, parent, first, factory, descriptors, decisions, owned);
                relay.warnDescriptors(first.limits());
                return relay;
            } catch (IOException | RuntimeException e) {
                for (AutoCloseable resource : owned.reversed()) {
                    try {
                        resource.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }
    }
}
