package io.portcullis.cli;

import io.portcullis.log.JsonLog;
import io.portcullis.relay.Relay;
import io.portcullis.relay.ops.MetricsListener;
import io.portcullis.relay.ops.Routes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import picocli.CommandLine.Option;

/** The options of the commands that run as a service, {@code relay} and {@code daemon} (SPEC R43). */
final class ServiceOptions {
    private static final Logger log = LoggerFactory.getLogger(ServiceOptions.class);
    private static final Map<String, Level> LEVELS =
            Map.of("error", Level.ERROR, "warn", Level.WARN, "info", Level.INFO, "debug", Level.DEBUG);
    private static final String LOOPBACK = "127.0.0.1";
    /** A day: a drain longer than that is a typing error, and systemd would have killed it anyway. */
    private static final long MAX_DRAIN_SECONDS = 86_400;

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            defaultValue = "info",
            completionCandidates = Levels.class,
            description = "The operational log's level: error, warn, info or debug; default: ${DEFAULT-VALUE}. "
                    + "One JSON object per line on standard error.")
    String logLevel;

    /** The values of {@code --log-level}, for the shells' completion (packaging/docgen). */
    static final class Levels implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("error", "warn", "info", "debug").iterator();
        }
    }

    @Option(
            names = "--metrics-listen",
            paramLabel = "ADDRESS:PORT",
            description = "Serves GET /metrics (Prometheus text), /healthz and /readyz over HTTP on this TCP address "
                    + "(an IP address; a PORT alone means 127.0.0.1; port 0: one the kernel picks). A non-loopback "
                    + "address is warned about: every host that reaches it can read the metrics.")
    Optional<String> metricsListen = Optional.empty();

    @Option(
            names = "--drain",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "On SIGTERM or SIGINT: new connections are refused at once, open ones get this long to end, "
                    + "then the rest are closed; default: ${DEFAULT-VALUE}.")
    String drain;

    /** Adds a problem for each bad option; puts the log level into effect when it is good. */
    void check(List<String> problems) {
        Level level = LEVELS.get(logLevel.toLowerCase(Locale.ROOT));
        if (level == null) {
            problems.add("--log-level: " + logLevel + " (expected: error, warn, info or debug)");
        } else {
            JsonLog.level(level);
        }
        if (grace().isEmpty()) {
            problems.add("--drain: " + drain + " (expected: 0-" + MAX_DRAIN_SECONDS + " seconds)");
        }
        if (metricsListen.isPresent() && metrics().isEmpty()) {
            problems.add("--metrics-listen: " + metricsListen.get()
                    + " (expected: ADDRESS:PORT with an IP address and a port 0-65535, e.g. 127.0.0.1:9464 or"
                    + " [::1]:9464, or a PORT alone for 127.0.0.1)");
        }
    }

    /** {@code --drain}; empty when it is no number of seconds in range. */
    private Optional<Duration> grace() {
        return drain.matches("[0-9]{1,6}") && Long.parseLong(drain) <= MAX_DRAIN_SECONDS
                ? Optional.of(Duration.ofSeconds(Long.parseLong(drain)))
                : Optional.empty();
    }

    /** {@code --metrics-listen}; empty when absent or no address. */
    private Optional<InetSocketAddress> metrics() {
        return metricsListen.flatMap(ServiceOptions::listenAddress);
    }

    /**
     * Drains {@code relay} for {@code --drain} seconds (SIGTERM): new connections are refused, open
     * ones may end meanwhile; a failure is logged, and the caller closes the relay either way.
     */
    void drain(Relay relay) {
        try {
            relay.drain(grace().orElseThrow(() -> new IllegalStateException("--drain: not checked")));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.error("while draining: {}", e.toString());
        }
    }

    /** Starts the metrics listener over {@code routes} when {@code --metrics-listen} was given. */
    Optional<MetricsListener> listen(Routes routes) throws IOException {
        Optional<InetSocketAddress> metrics = metrics();
        return metrics.isEmpty() ? Optional.empty() : Optional.of(MetricsListener.start(metrics.get(), routes));
    }

    /**
     * {@code ADDRESS:PORT} ({@code [v6]:PORT} for IPv6) or {@code PORT} alone, for 127.0.0.1; the
     * address is an IP literal, never a name to resolve.
     */
    static Optional<InetSocketAddress> listenAddress(String value) {
        String host = LOOPBACK;
        String port = value;
        if (value.startsWith("[")) {
            int end = value.indexOf("]:");
            if (end < 0) {
                return Optional.empty();
            }
            host = value.substring(1, end);
            port = value.substring(end + 2);
        } else if (value.indexOf(':') >= 0) {
            host = value.substring(0, value.lastIndexOf(':'));
            port = value.substring(value.lastIndexOf(':') + 1);
            if (host.indexOf(':') >= 0) {
                return Optional.empty();
            }
        }
        boolean v4 = host.indexOf(':') < 0;
        if (v4 && !host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            return Optional.empty();
        }
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            return Optional.empty();
        }
        try {
            return Optional.of(new InetSocketAddress(InetAddress.ofLiteral(host), Integer.parseInt(port)));
        } catch (IllegalArgumentException notLiteral) {
            return Optional.empty();
        }
    }
}
