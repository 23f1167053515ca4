package io.portcullis.daemon;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.portcullis.relay.Relay;
import io.portcullis.relay.ops.ConnectionGate;
import io.portcullis.relay.ops.ListenerLimits;
import io.portcullis.relay.ops.Routes;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.Objects;
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
 * /spawns/{id}}, {@code DELETE /spawns/{id}}, {@code POST /reload}, and the operator's {@link Routes}
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
    private final Channel server;
    private final ControlNamespaces namespaces;
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

    private Daemon(
            Relay relay,
            Path control,
            Control api,
            Routes routes,
            EventLoopGroup loop,
            ExecutorService thread,
            Channel server,
            ControlNamespaces namespaces) {
        this.relay = relay;
        this.control = control;
        this.api = api;
        this.routes = routes;
        this.loop = loop;
        this.thread = thread;
        this.server = server;
        this.namespaces = namespaces;
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
        Objects.requireNonNull(relay, "relay");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(routes, "routes");
        try {
            return listen(relay, control, Objects.requireNonNull(hosts, "hosts"), settings, routes);
        } catch (IOException | RuntimeException e) {
            settings.namespaces().close();
            throw e;
        }
    }

    private static Daemon listen(Relay relay, Path control, HostConfigSource hosts, Settings settings, Routes routes)
            throws IOException {
        Control api = new Control(relay, hosts, InstantSource.system(), settings.keeper());
        ControlSocket.clear(control);
        ControlPeers peers = new ControlPeers(ControlSocket.ownUid(), settings.namespaces(), ControlPeer::read);
        ConnectionGate gate = new ConnectionGate("control socket", settings.limits());
        Transport transport = settings.transport();
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, transport.io());
        ExecutorService thread = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("control").daemon(true).factory());
        Path staging = Files.createTempDirectory(
                control.toAbsolutePath().getParent(),
                ".control-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path bound = staging.resolve("control.sock");
        try {
            Channel server = new ServerBootstrap()
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
                                                new ControlHandler(api, routes, thread));
                            }
                        }
                    })
                    .bind(transport.domainAddress(bound))
                    .syncUninterruptibly()
                    .channel();
            Files.setPosixFilePermissions(bound, PosixFilePermissions.fromString("rw-------"));
            Files.move(bound, control, StandardCopyOption.ATOMIC_MOVE);
            Files.delete(staging);
            log.atInfo()
                    .addKeyValue("networkNamespaces", settings.namespaces().toString())
                    .log("control socket serves the daemon's uid in these network namespaces");
            return new Daemon(relay, control, api, routes, loop, thread, server, settings.namespaces());
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(bound);
            Files.deleteIfExists(staging);
            thread.shutdownNow();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            throw e;
        }
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
     * Reads the host configuration again, on the control thread like {@code POST /reload} (SIGHUP
     * calls this); the log says which generation is in effect, or why the file was refused.
     */
    public Future<?> reload() {
        return thread.submit(api::reload);
    }

    /** Stops listening, closes every spawn (removing its directory) and the relay, removes the control socket. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.close().syncUninterruptibly();
            thread.shutdown();
            awaitQuietly();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        } finally {
            namespaces.close();
            try {
                relay.close();
            } finally {
                try {
                    Files.deleteIfExists(control);
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
