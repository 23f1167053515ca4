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

/** {@link Routes#of(Relay)}: the routes over a relay's metrics, event loops and state. */
final class RelayRoutes implements Routes {
    static final Duration HEALTH_WAIT = Duration.ofSeconds(2);

    private final Relay relay;
    private final PrometheusRegistry registry = new PrometheusRegistry();

    RelayRoutes(Relay relay) {
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

    @Override
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
