package io.portcullis.relay.ops;

import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;

import io.netty.handler.codec.http.HttpMethod;
import io.portcullis.relay.Relay;
import io.portcullis.relay.observe.Metrics;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The operator's routes (SPEC R43), served by the metrics listener and the daemon's control
 * socket; {@code HEAD} answers as {@code GET} without the body, any other method is {@code 405}.
 *
 * <ul>
 *   <li>{@code /metrics}: the relay's metrics, the process's and the JVM's (from the Prometheus
 *       Java client) and {@code portcullis_build_info}, in the Prometheus text format 0.0.4;
 *   <li>{@code /healthz}: {@code 200} once every event loop of the relay has run a task, within
 *       {@link #HEALTH_WAIT}; {@code 503} otherwise;
 *   <li>{@code /readyz}: {@code 200} while the relay takes new spawns and connections (started,
 *       not draining, not closed); {@code 503} otherwise.
 * </ul>
 */
public final class Routes {
    public static final String METRICS = "/metrics";
    public static final String HEALTH = "/healthz";
    public static final String READY = "/readyz";

    static final Duration HEALTH_WAIT = Duration.ofSeconds(2);

    private final Relay relay;
    private final PrometheusRegistry registry = new PrometheusRegistry();

    public Routes(Relay relay) {
        this.relay = Objects.requireNonNull(relay, "relay");
        registry.register(relay.metricsCollector());
        JvmMetrics.builder().register(registry);
        BuildInfo build = BuildInfo.ofThisBuild();
        Info.builder()
                .name("portcullis_build")
                .help("The version and git commit this relay was built from.")
                .labelNames("version", "commit")
                .register(registry)
                .addLabelValues(build.version(), build.commit());
    }

    /** The answer to {@code method path} when the path is one of these routes; empty for any other. */
    public Optional<CompletableFuture<Reply>> answer(HttpMethod method, String path) {
        if (!path.equals(METRICS) && !path.equals(HEALTH) && !path.equals(READY)) {
            return Optional.empty();
        }
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            return Optional.of(CompletableFuture.completedFuture(Reply.notAllowed("GET, HEAD")));
        }
        return Optional.of(
                switch (path) {
                    case METRICS -> CompletableFuture.completedFuture(metrics());
                    case HEALTH -> health();
                    default -> CompletableFuture.completedFuture(ready());
                });
    }

    private Reply metrics() {
        return new Reply(OK, PrometheusTextFormatWriter.CONTENT_TYPE, Metrics.text(registry.scrape()), "");
    }

    private CompletableFuture<Reply> health() {
        return relay.eventLoopsAnswer()
                .orTimeout(HEALTH_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .handle((ran, failed) -> failed == null
                        ? Reply.text(OK, "ok")
                        : Reply.text(
                                SERVICE_UNAVAILABLE,
                                "event loops: no answer within " + HEALTH_WAIT.toSeconds() + " s"));
    }

    private Reply ready() {
        return relay.accepting()
                ? Reply.text(OK, "ready")
                : Reply.text(SERVICE_UNAVAILABLE, relay.draining() ? "draining" : "closed");
    }
}
