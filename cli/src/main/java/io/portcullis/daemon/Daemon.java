package io.portcullis.daemon;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.ops.ConnectionGate;
import io.portcullis.relay.ops.ListenerLimits;
import io.portcullis.relay.ops.Routes;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many spawns in one relay, driven over a unix control socket (SPEC R5): HTTP/1.1 with JSON,
 * mode 0600, and only peers with the daemon's own uid in its own network namespace, or one the
 * operator listed ({@link ControlPeers}); at most {@link ListenerLimits#connections()} of them at
 * once, each carrying one request and its answer within the deadlines ({@link ConnectionGate}).
 * Nothing listens on TCP. The daemon owns its relay:
 * {@link #close()} closes every spawn, removing its directory, and removes the control socket.
 *
 * <p>Routes: {@code POST /spawns}, {@code GET /spawns}, {@code GET /spawns/{id}}, {@code PUT
 * /spawns/{id}}, {@code DELETE /spawns/{id}}, {@code POST /reload}, {@code POST /upgrade} ({@link
 * Successor}), and the operator's {@link Routes}
 * ({@code GET /metrics}, {@code /healthz}, {@code /readyz}); see docs/daemon.md.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Daemon.class);
    /** The largest control request body; a spawn policy is a few KiB. */
    public static final int MAX_BODY_BYTES = 256 * 1024;

    private final Relay relay;
    private final Path control;
    private final Control api;
    private final Routes routes;
    private final EventLoopGroup loop;
    private final ExecutorService thread;
    private final ControlNamespaces namespaces;
    private final ControlPeers peers;
    private final ConnectionGate gate;
    private final Transport transport;
    private final Successor successor;
    private final ControlSocket socket;

    private final CompletableFuture<Long> upgraded = new CompletableFuture<>();
    private volatile List<SpawnHandle> handedOn = List.of();
    private volatile Optional<Predecessor> predecessor = Optional.empty();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * How the control socket is served.
     *
     * @param namespaces the network namespaces whose peers are served; the daemon closes them
     * @param limits its connection cap and exchange deadline
     * @param keeper what keeps the spawns beyond the process ({@link ServiceManager} under systemd)
     */
    public record Settings(Transport transport, ControlNamespaces namespaces, ListenerLimits limits, Keeper keeper) {
        public Settings {
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(namespaces, "namespaces");
            Objects.requireNonNull(limits, "limits");
            Objects.requireNonNull(keeper, "keeper");
        }

        /** Keeping no spawn beyond the process. */
        public Settings(Transport transport, ControlNamespaces namespaces, ListenerLimits limits) {
            this(transport, namespaces, limits, Keeper.NONE);
        }

        /** These settings, with every spawn the control API opens kept by {@code manager} (SPEC R44). */
        public Settings keptBy(ServiceManager manager) {
            return new Settings(transport, namespaces, limits, manager);
        }

        /** The best transport, the daemon's own namespace alone, {@link ListenerLimits#CONTROL}. */
        public static Settings defaults() throws IOException {
            return new Settings(Transport.best(), ControlNamespaces.own(), ListenerLimits.CONTROL);
        }
    }

    private Daemon(Relay relay, Path control, HostConfigSource hosts, Settings settings, Routes routes) {
        this.relay = relay;
        this.control = control;
        this.api = new Control(relay, hosts, InstantSource.system(), settings.keeper());
        this.routes = routes;
        this.namespaces = settings.namespaces();
        this.transport = settings.transport();
        this.peers = new ControlPeers(ownUid(), namespaces, ControlPeer::read);
        this.gate = new ConnectionGate("control socket", settings.limits());
        this.successor = new Successor(relay, namespaces, new Successor.Host() {
            @Override
            public Map<String, String> policies() {
                return api.policies();
            }

            @Override
            public void reclaim() {
                socket.reclaim();
            }

            @Override
            public void handedOn(long pid, List<SpawnHandle> carried) {
                handedOn = List.copyOf(carried);
                api.upgraded(pid);
                upgraded.complete(pid);
            }
        });
        this.socket = new ControlSocket(control, this::listen);
        this.loop = new MultiThreadIoEventLoopGroup(1, transport.io());
        this.thread = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("control").daemon(true).factory());
    }

    private static int ownUid() {
        try {
            return ControlSocket.ownUid();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Listens on {@code control} with {@link Settings#defaults()}; see {@link #start(Relay, Path, HostConfigSource, Settings)}. */
    public static Daemon start(Relay relay, Path control, HostConfigSource hosts) throws IOException {
        return start(relay, control, hosts, Settings.defaults());
    }

    /**
     * Listens on {@code control}: the socket is bound in a private directory, given mode 0600,
     * then moved to its path, so no other uid can ever connect. A stale socket at the path (no one
     * listening) is replaced; anything else there is an error.
     *
     * @param hosts what a reload reads
     */
    public static Daemon start(Relay relay, Path control, HostConfigSource hosts, Settings settings)
            throws IOException {
        return start(relay, control, hosts, settings, Routes.of(Objects.requireNonNull(relay, "relay")));
    }

    /**
     * As {@link #start(Relay, Path, HostConfigSource, Settings)}, answering the operator's routes
     * from {@code routes} (tests count them).
     */
    static Daemon start(Relay relay, Path control, HostConfigSource hosts, Settings settings, Routes routes)
            throws IOException {
        return listen(relay, control, hosts, settings, routes);
    }

    /**
     * {@code --upgrade} (SPEC R44): takes every spawn of the daemon that serves {@code control} now
     * into {@code relay} ({@link Predecessor}), then takes over the control path: a socket bound and
     * given mode 0600 beforehand is renamed over the path, which the running daemon's socket holds
     * until then, in one step (a client connects to the one or the other, never to nothing); then
     * it tells that daemon to stop. Closes {@code settings}' namespaces when it fails; the caller closes
     * the relay.
     *
     * @throws Predecessor.Failed when any step failed: the running daemon serves every spawn on
     */
    public static Daemon upgrade(Relay relay, Path control, HostConfigSource hosts, Settings settings)
            throws Predecessor.Failed {
        Objects.requireNonNull(relay, "relay");
        Daemon daemon;
        ControlSocket.Staged staged;
        try {
            daemon = new Daemon(relay, control, hosts, settings, Routes.of(relay));
        } catch (RuntimeException e) {
            settings.namespaces().close();
            throw e;
        }
        try {
            // Bound before the spawns come, so that the path changes hands as soon as they are restored.
            staged = daemon.socket.stage();
        } catch (IOException | RuntimeException e) {
            daemon.shutDown();
            throw new Predecessor.Failed("cannot listen on a control socket: " + e.getMessage(), e);
        }
        Predecessor predecessor;
        try {
            predecessor = Predecessor.take(control, relay);
        } catch (Predecessor.Failed | RuntimeException e) {
            ControlSocket.discard(staged);
            daemon.shutDown();
            throw e;
        }
        try {
            daemon.api.adopt(predecessor.policies());
            daemon.socket.publish(staged);
        } catch (IOException | RuntimeException e) {
            predecessor.abort("the successor cannot take the control socket's path: " + e.getMessage());
            daemon.shutDown();
            throw new Predecessor.Failed("cannot take the control socket's path: " + e.getMessage(), e);
        }
        daemon.predecessor = Optional.of(predecessor);
        predecessor.handedOver();
        log.atInfo()
                .addKeyValue("networkNamespaces", settings.namespaces().toString())
                .log("control socket serves the daemon's uid in these network namespaces");
        log.atInfo()
                .addKeyValue("predecessor", predecessor.pid())
                .addKeyValue("spawns", predecessor.restored().size())
                .log(
                        "upgraded from pid {}: {} spawns restored{}",
                        predecessor.pid(),
                        predecessor.restored().size(),
                        predecessor.left().isEmpty() ? "" : "; left behind: " + String.join(", ", predecessor.left()));
        return daemon;
    }

    /** Stops the control thread and loop of a daemon that never served; its namespaces are closed. */
    private void shutDown() {
        thread.shutdownNow();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        namespaces.close();
    }

    /** The daemon this one took over from ({@link #upgrade}); empty for one started fresh. */
    public Optional<Predecessor> predecessor() {
        return predecessor;
    }

    private static Daemon listen(Relay relay, Path control, HostConfigSource hosts, Settings settings, Routes routes)
            throws IOException {
        Objects.requireNonNull(relay, "relay");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(hosts, "hosts");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(routes, "routes");
        Daemon daemon = null;
        try {
            ControlSocket.clear(control);
            daemon = new Daemon(relay, control, hosts, settings, routes);
            daemon.socket.bind();
            log.atInfo()
                    .addKeyValue("networkNamespaces", settings.namespaces().toString())
                    .log("control socket serves the daemon's uid in these network namespaces");
            return daemon;
        } catch (IOException | RuntimeException e) {
            if (daemon != null) {
                daemon.thread.shutdownNow();
                daemon.loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
            settings.namespaces().close();
            throw e;
        }
    }

    /** A listening channel at {@code socket} that serves the control API to the peers it admits. */
    private Channel listen(Path socket) {
        return new ServerBootstrap()
                .group(loop)
                .channelFactory(transport.domainServer())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        if (peers.admit(channel) && gate.admit(channel)) {
                            channel.pipeline()
                                    .addLast(
                                            new HttpServerCodec(),
                                            gate.exchange(),
                                            new HttpObjectAggregator(MAX_BODY_BYTES),
                                            new ControlHandler(api, successor, routes, thread));
                        }
                    }
                })
                .bind(transport.domainAddress(socket))
                .syncUninterruptibly()
                .channel();
    }

    /** The control socket's path. */
    public Path control() {
        return control;
    }

    /** The operator's routes, which the control socket serves, for a metrics listener to serve too. */
    public Routes routes() {
        return routes;
    }

    /** The relay this daemon drives. */
    public Relay relay() {
        return relay;
    }

    /**
     * Completes with the successor's pid once an upgrade handed every spawn and the control path
     * to it (SPEC R44): this daemon then stops accepting on its spawns' sockets (they stay open for
     * the successor) and answers every control request {@code 503}; it is to drain and {@link
     * #close()}, which lets the spawns go without removing their door tokens and leaves the path.
     */
    public CompletableFuture<Long> upgraded() {
        return upgraded;
    }

    /**
     * Reads the host configuration again, on the control thread like {@code POST /reload} (SIGHUP
     * calls this); the log says which generation is in effect, or why the file was refused.
     */
    public Future<?> reload() {
        return thread.submit(api::reload);
    }

    /**
     * Stops listening, closes every spawn (removing its directory) and the relay, removes the
     * control socket. After an upgrade, the spawns the successor serves are let go instead (their
     * door tokens stay) and the control path, which is the successor's, stays.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            socket.close();
            thread.shutdown();
            awaitQuietly();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        } finally {
            namespaces.close();
            try {
                handedOn.forEach(SpawnHandle::letGo);
                relay.close();
            } finally {
                try {
                    if (!upgraded.isDone()) {
                        Files.deleteIfExists(control);
                    }
                } catch (IOException e) {
                    log.warn("could not remove {}: {}", control, e.toString());
                }
            }
        }
    }

    private void awaitQuietly() {
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
