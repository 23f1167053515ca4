package io.portcullis.owner.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import com.github.dockerjava.api.model.EventType;
import com.github.dockerjava.api.model.Network;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Docker view over the Engine API (docker-java, zerodep transport). A container event marks the
 * view stale and the next question re-lists; a periodic re-list and events re-subscription cover a
 * lost stream. Until the first successful list, and after any failed one, Docker counts as down.
 * The Docker networks ({@link #networks()}) are this host's Docker bridge interfaces, read at once
 * and on every re-list, the subnets of the last network list (re-listed with the containers and on
 * every network event), and the addresses of the last container list; all kept while Docker is down.
 */
public final class DockerApiView implements DockerView, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DockerApiView.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * When the view first lists and subscribes. docker-java's client is slow to build (its
     * configuration, Jackson, a TLS context even for a unix socket; docs/benchmarks.md): a command
     * that ends sooner ({@code check}, a {@code run} of a short command) never builds it, and a
     * question asked before this lists at once, as a stale view does.
     */
    private static final Duration FIRST_REFRESH = Duration.ofSeconds(2);

    private final URI endpoint;
    private final Object clientLock = new Object();
    /** Built on first use; none once closed. Both under {@link #clientLock}. */
    private Optional<DockerClient> client = Optional.empty();

    private boolean closed;
    private final ScheduledExecutorService timer;
    private final Object lock = new Object();
    private volatile List<ContainerInfo> view = List.of();
    private volatile boolean stale = true;
    /** One more at each invalidation, so a list that raced one leaves the view stale. */
    private final AtomicLong invalidations = new AtomicLong();

    private volatile @Nullable Closeable events;
    private volatile List<DockerNetworks.Block> bridges;
    private volatile List<DockerNetworks.Block> subnets = List.of();
    private volatile DockerNetworks networks;

    /**
     * Connects lazily: nothing here fails when Docker is down, and docker-java's client is built by
     * the first question or refresh.
     *
     * @throws IllegalArgumentException when {@code endpoint} is not a {@code unix://}, {@code tcp://}
     *     or {@code npipe://} URI
     */
    public DockerApiView(String endpoint, Duration relistEvery) {
        this.endpoint = URI.create(endpoint);
        if (!List.of("unix", "tcp", "npipe").contains(String.valueOf(this.endpoint.getScheme()))) {
            throw new IllegalArgumentException("endpoint: " + endpoint + " (expected: unix://PATH or tcp://HOST:PORT)");
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "owner-docker-view");
            t.setDaemon(true);
            return t;
        });
        this.bridges = BridgeInterfaces.read();
        this.networks = new DockerNetworks(bridges);
        long every = relistEvery.toMillis();
        timer.scheduleWithFixedDelay(this::refresh, FIRST_REFRESH.toMillis(), every, TimeUnit.MILLISECONDS);
    }

    private DockerClient client() {
        synchronized (clientLock) {
            if (closed) {
                throw new IllegalStateException("docker view closed");
            }
            if (client.isEmpty()) {
                DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder()
                        .withDockerHost(endpoint.toString())
                        .withDockerTlsVerify(false)
                        .build();
                ZerodepDockerHttpClient http = new ZerodepDockerHttpClient.Builder()
                        .dockerHost(endpoint)
                        .connectionTimeout(CONNECT_TIMEOUT)
                        .responseTimeout(RESPONSE_TIMEOUT)
                        .build();
                client = Optional.of(DockerClientImpl.getInstance(config, http));
            }
            return client.get();
        }
    }

    @Override
    public List<ContainerInfo> containers(boolean fresh) throws DockerDownException {
        if (!fresh && !stale && events != null) {
            return view;
        }
        synchronized (lock) {
            // The view is trusted again only once a list succeeded with no event meanwhile: marking
            // it fresh before the list would let a question answered during a failing list read
            // the old view instead of learning that Docker is down.
            long before = invalidations.get();
            try {
                List<ContainerInfo> listed = client().listContainersCmd().exec().stream()
                        .map(Containers::info)
                        .toList();
                view = listed;
                updateNetworks();
                stale = invalidations.get() != before;
                return listed;
            } catch (RuntimeException e) {
                invalidate();
                throw new DockerDownException("docker: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public DockerNetworks networks() {
        return networks;
    }

    private void refresh() {
        bridges = BridgeInterfaces.read();
        updateNetworks();
        try {
            subscribe();
            containers(true);
            listNetworks();
        } catch (DockerDownException | RuntimeException e) {
            LOG.debug("docker view refresh failed: {}", e.toString());
        }
    }

    private void listNetworks() {
        List<String> cidrs = new ArrayList<>();
        for (Network network : client().listNetworksCmd().exec()) {
            if (network.getIpam() == null || network.getIpam().getConfig() == null) {
                continue;
            }
            for (Network.Ipam.Config config : network.getIpam().getConfig()) {
                if (config != null && config.getSubnet() != null) {
                    cidrs.add(config.getSubnet());
                }
            }
        }
        subnets = DockerNetworks.subnets(cidrs);
        updateNetworks();
    }

    private void refreshNetworks() {
        try {
            listNetworks();
        } catch (RuntimeException e) {
            LOG.debug("docker network list failed: {}", e.toString());
        }
    }

    private synchronized void updateNetworks() {
        List<DockerNetworks.Block> addresses = new ArrayList<>();
        for (ContainerInfo c : view) {
            c.addresses().forEach(a -> addresses.add(DockerNetworks.Block.of(a)));
        }
        networks = new DockerNetworks(bridges).with(subnets).with(addresses);
    }

    private void subscribe() {
        if (events != null) {
            return;
        }
        ResultCallback.Adapter<Event> stream = new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Event event) {
                invalidate();
                if (event.getType() == EventType.NETWORK) {
                    timer.execute(DockerApiView.this::refreshNetworks);
                }
            }

            @Override
            public void onError(Throwable throwable) {
                lost();
            }

            @Override
            public void onComplete() {
                lost();
            }
        };
        // Set before exec: a stream that fails at once calls lost() after this, not before.
        events = stream;
        try {
            client().eventsCmd()
                    .withEventTypeFilter(EventType.CONTAINER, EventType.NETWORK)
                    .exec(stream);
        } catch (RuntimeException e) {
            lost();
            throw e;
        }
    }

    /** Whether docker-java's client has been built (by a question or a refresh). */
    boolean clientBuilt() {
        synchronized (clientLock) {
            return client.isPresent();
        }
    }

    /** Whether the events stream is open, so the view may be trusted between re-lists. */
    boolean following() {
        return events != null;
    }

    private void lost() {
        invalidate();
        events = null;
    }

    private void invalidate() {
        invalidations.incrementAndGet();
        stale = true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        Closeable stream = events;
        Optional<DockerClient> built;
        synchronized (clientLock) {
            closed = true;
            built = client;
        }
        try {
            if (stream != null) {
                stream.close();
            }
            if (built.isPresent()) {
                built.get().close();
            }
        } catch (IOException e) {
            LOG.debug("docker client close: {}", e.toString());
        }
    }
}
