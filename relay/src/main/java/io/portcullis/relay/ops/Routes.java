package io.portcullis.relay.ops;

import io.netty.handler.codec.http.HttpMethod;
import io.portcullis.relay.Relay;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's routes (SPEC R43), served by the metrics listener and the daemon's control
 * socket; {@code HEAD} answers as {@code GET} without the body, any other method is {@code 405}.
 *
 * <ul>
 *   <li>{@code /metrics}: the relay's metrics, the process's and the JVM's (from the Prometheus
 *       Java client) and {@code portcullis_build_info}, in the Prometheus text format 0.0.4;
 *   <li>{@code /healthz}: {@code 200} once every event loop of the relay has run a task, within
 *       2 s; {@code 503} otherwise;
 *   <li>{@code /readyz}: {@code 200} while the relay takes new spawns and connections (started,
 *       not draining, not closed); {@code 503} otherwise.
 * </ul>
 */
public interface Routes {
    String METRICS = "/metrics";
    String HEALTH = "/healthz";
    String READY = "/readyz";

    /** The answer to {@code method path} when the path is one of these routes; empty for any other. */
    Optional<CompletableFuture<Reply>> answer(HttpMethod method, String path);

    /** The routes of {@code relay}. */
    static Routes of(Relay relay) {
        return new RelayRoutes(relay);
    }
}
