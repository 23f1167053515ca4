package io.portcullis.relay.observe;

import io.portcullis.relay.policy.DenyCode;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * The relay's counters and latency histograms (SPEC R17), read by the Prometheus client as
 * snapshots and written in its text format.
 * Connections that ended are counted from their decision records, so a metric and a decision line
 * never disagree; connections accepted and the bytes carried are counted as they happen ({@link
 * Traffic}), so an open tunnel shows what it moved; gauges (open connections, spawns, the
 * configuration generation) are read from the relay when the text is written.
 */
public final class Metrics {
    private final Map<String, LongAdder> connections = new ConcurrentHashMap<>();
    /** Connections whose shadow policy answered otherwise (SPEC R26), by the shadow's verdict and code. */
    private final Map<String, LongAdder> shadowDifferences = new ConcurrentHashMap<>();

    /** Every spawn's traffic adds to it. */
    private final Traffic traffic = Traffic.own();

    private final LongAdder reloadsOk = new LongAdder();
    private final LongAdder reloadsFailed = new LongAdder();
    private final LongAdder listenersBroken = new LongAdder();
    private final List<DecisionSink> sinks = new CopyOnWriteArrayList<>();
    private final Histogram decision = new Histogram(
            "portcullis_decision_seconds",
            "Time from a complete request to its verdict (DNS and the owner check included).");
    private final Histogram dns =
            new Histogram("portcullis_dns_seconds", "Time to a DNS answer, cached ones included.");
    private final Histogram owner = new Histogram("portcullis_owner_check_seconds", "Time to an owner check answer.");
    private final Histogram connect =
            new Histogram("portcullis_connect_seconds", "Time to dial a checked target, every address tried included.");

    /** Metrics with every counter at zero. */
    public Metrics() {}

    /** The gauges the relay reports when the text is written. */
    public interface Gauges {
        /** The open connections of each open spawn, by spawn id. */
        Map<String, Integer> openConnections();

        /** The configuration generation in use for new connections. */
        long generation();
    }

    /** Counts of a new spawn's connections and bytes, which the relay's count too. */
    public Traffic spawnTraffic() {
        return traffic.spawn();
    }

    /**
     * A sink that counts each decision, then hands it to {@code next}; the lines {@code next} drops
     * are counted too.
     */
    public DecisionSink counting(DecisionSink next) {
        Objects.requireNonNull(next, "next");
        sinks.add(next);
        return new DecisionSink() {
            @Override
            public void accept(Decision record) {
                count(record);
                next.accept(record);
            }

            @Override
            public void opened(Decision record) {
                next.opened(record);
            }

            @Override
            public long dropped() {
                return next.dropped();
            }

            @Override
            public void reopen() {
                next.reopen();
            }
        };
    }

    void count(Decision record) {
        String key = record.kind()
                + '\0'
                + record.verdict()
                + '\0'
                + record.code().map(DenyCode::code).orElse("");
        LongAdder counter = connections.get(key);
        if (counter == null) {
            counter = connections.computeIfAbsent(key, k -> new LongAdder());
        }
        counter.increment();
        record.shadow().ifPresent(differs -> {
            String shadow = differs.verdict()
                    + '\0'
                    + differs.code().map(DenyCode::code).orElse("");
            shadowDifferences.computeIfAbsent(shadow, k -> new LongAdder()).increment();
        });
    }

    public Histogram decision() {
        return decision;
    }

    public Histogram dns() {
        return dns;
    }

    public Histogram owner() {
        return owner;
    }

    public Histogram connect() {
        return connect;
    }

    /** Counts one reload of the host configuration. */
    public void reloaded(boolean ok) {
        (ok ? reloadsOk : reloadsFailed).increment();
    }

    /** Counts one spawn marked broken because a handed-over socket stopped accepting (SPEC R4). */
    public void listenerBroken() {
        listenersBroken.increment();
    }

    /**
     * The relay's metrics as snapshots of the Prometheus client, read from the counters and
     * {@code gauges} each time a scrape collects them; register it with a registry to serve them
     * beside others.
     */
    public MultiCollector collector(Gauges gauges) {
        Objects.requireNonNull(gauges, "gauges");
        return () -> snapshots(gauges);
    }

    /** The relay's metrics alone, in the Prometheus text format 0.0.4. */
    public String text(Gauges gauges) {
        return text(snapshots(gauges));
    }

    /** {@code snapshots} in the Prometheus text format 0.0.4, written by the Prometheus client. */
    public static String text(MetricSnapshots snapshots) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            PrometheusTextFormatWriter.create().write(out, snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private MetricSnapshots snapshots(Gauges gauges) {
        Map<String, Integer> open = new TreeMap<>(gauges.openConnections());
        CounterSnapshot.Builder ended = CounterSnapshot.builder()
                .name("portcullis_connections")
                .help("Connections ended, by kind, verdict and code (none when allowed).");
        new TreeMap<>(connections).forEach((key, count) -> {
            String[] parts = key.split("\0", -1);
            ended.dataPoint(counted(
                    count.sum(),
                    "kind",
                    parts[0],
                    "verdict",
                    parts[1],
                    "code",
                    parts[2].isEmpty() ? "none" : parts[2]));
        });
        GaugeSnapshot.Builder openBySpawn =
                GaugeSnapshot.builder().name("portcullis_open_connections").help("Open connections, by spawn.");
        open.forEach((spawn, count) -> openBySpawn.dataPoint(measured(count, "spawn", spawn)));
        CounterSnapshot.Builder shadow = CounterSnapshot.builder()
                .name("portcullis_shadow_differences")
                .help(
                        "Connections whose shadow policy would have answered otherwise, by the shadow's verdict and code.");
        new TreeMap<>(shadowDifferences).forEach((key, count) -> {
            String[] parts = key.split("\0", -1);
            shadow.dataPoint(counted(count.sum(), "verdict", parts[0], "code", parts[1].isEmpty() ? "none" : parts[1]));
        });
        return MetricSnapshots.of(
                CounterSnapshot.builder()
                        .name("portcullis_connections_accepted")
                        .help("Connections accepted on the spawns' sockets, counted at accept.")
                        .dataPoint(counted(traffic.connections()))
                        .build(),
                ended.build(),
                shadow.build(),
                CounterSnapshot.builder()
                        .name("portcullis_bytes")
                        .help("Bytes carried, up (client to target) and down, counted as they move.")
                        .dataPoint(counted(traffic.bytesUp(), "direction", "up"))
                        .dataPoint(counted(traffic.bytesDown(), "direction", "down"))
                        .build(),
                openBySpawn.build(),
                GaugeSnapshot.builder()
                        .name("portcullis_spawns_open")
                        .help("Spawns open.")
                        .dataPoint(measured(open.size()))
                        .build(),
                GaugeSnapshot.builder()
                        .name("portcullis_config_generation")
                        .help("The host configuration generation that new connections use.")
                        .dataPoint(measured(gauges.generation()))
                        .build(),
                CounterSnapshot.builder()
                        .name("portcullis_config_reloads")
                        .help("Reloads of the host configuration, by result.")
                        .dataPoint(counted(reloadsOk.sum(), "result", "ok"))
                        .dataPoint(counted(reloadsFailed.sum(), "result", "error"))
                        .build(),
                CounterSnapshot.builder()
                        .name("portcullis_listeners_broken")
                        .help("Spawns marked broken because a handed-over socket stopped accepting (listener-broken).")
                        .dataPoint(counted(listenersBroken.sum()))
                        .build(),
                CounterSnapshot.builder()
                        .name("portcullis_decision_lines_dropped")
                        .help("Decision log lines that could not be written (a full disk, a failing file).")
                        .dataPoint(counted(
                                sinks.stream().mapToLong(DecisionSink::dropped).sum()))
                        .build(),
                decision.snapshot(),
                dns.snapshot(),
                owner.snapshot(),
                connect.snapshot());
    }

    private static CounterDataPointSnapshot counted(long value, String... labels) {
        return CounterDataPointSnapshot.builder()
                .labels(Labels.of(labels))
                .value(value)
                .build();
    }

    private static GaugeDataPointSnapshot measured(long value, String... labels) {
        return GaugeDataPointSnapshot.builder()
                .labels(Labels.of(labels))
                .value(value)
                .build();
    }
}
