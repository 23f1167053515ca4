package io.portcullis.relay.observe;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * The relay's counters and latency histograms (SPEC R17), written in the Prometheus text format.
 * Connections are counted from their decision records, so a metric and a decision line never
 * disagree; gauges (open connections, spawns, the configuration generation) are read from the
 * relay when the text is written.
 */
public final class Metrics {
    private final Map<String, LongAdder> connections = new ConcurrentHashMap<>();
    /** Connections whose shadow policy answered otherwise (SPEC R26), by the shadow's verdict and code. */
    private final Map<String, LongAdder> shadowDifferences = new ConcurrentHashMap<>();

    private final LongAdder bytesUp = new LongAdder();
    private final LongAdder bytesDown = new LongAdder();
    private final LongAdder reloadsOk = new LongAdder();
    private final LongAdder reloadsFailed = new LongAdder();
    private final List<DecisionSink> sinks = new CopyOnWriteArrayList<>();
    private final Histogram decision = new Histogram(
            "portcullis_decision_seconds",
            "Time from a complete request to its verdict (DNS and the owner check included).");
    private final Histogram dns =
            new Histogram("portcullis_dns_seconds", "Time to a DNS answer, cached ones included.");
    private final Histogram owner = new Histogram("portcullis_owner_check_seconds", "Time to an owner check answer.");
    private final Histogram connect =
            new Histogram("portcullis_connect_seconds", "Time to dial a checked target, every address tried included.");

    /** The gauges the relay reports when the text is written. */
    public interface Gauges {
        /** The open connections of each open spawn, by spawn id. */
        Map<String, Integer> openConnections();

        /** The configuration generation in use for new connections. */
        long generation();
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
        String key = record.kind() + '\0' + record.verdict() + '\0' + (record.code() == null ? "" : record.code());
        LongAdder counter = connections.get(key);
        if (counter == null) {
            counter = connections.computeIfAbsent(key, k -> new LongAdder());
        }
        counter.increment();
        bytesUp.add(record.bytesUp());
        bytesDown.add(record.bytesDown());
        if (record.shadow() != null) {
            String shadow = record.shadow().verdict()
                    + '\0'
                    + (record.shadow().code() == null ? "" : record.shadow().code());
            shadowDifferences.computeIfAbsent(shadow, k -> new LongAdder()).increment();
        }
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

    /** The whole exposition, in the Prometheus text format 0.0.4. */
    public String text(Gauges gauges) {
        StringBuilder out = new StringBuilder(4096);
        header(
                out,
                "portcullis_connections_total",
                "counter",
                "Connections ended, by kind, verdict and code (none when allowed).");
        new TreeMap<>(connections).forEach((key, count) -> {
            String[] parts = key.split("\0", -1);
            out.append("portcullis_connections_total{kind=\"")
                    .append(parts[0])
                    .append("\",verdict=\"")
                    .append(parts[1])
                    .append("\",code=\"")
                    .append(parts[2].isEmpty() ? "none" : parts[2])
                    .append("\"} ")
                    .append(count.sum())
                    .append('\n');
        });
        header(
                out,
                "portcullis_shadow_differences_total",
                "counter",
                "Connections whose shadow policy would have answered otherwise, by the shadow's verdict and code.");
        new TreeMap<>(shadowDifferences).forEach((key, count) -> {
            String[] parts = key.split("\0", -1);
            out.append("portcullis_shadow_differences_total{verdict=\"")
                    .append(parts[0])
                    .append("\",code=\"")
                    .append(parts[1].isEmpty() ? "none" : parts[1])
                    .append("\"} ")
                    .append(count.sum())
                    .append('\n');
        });
        header(
                out,
                "portcullis_bytes_total",
                "counter",
                "Bytes copied by ended connections, up (client to target) and down.");
        out.append("portcullis_bytes_total{direction=\"up\"} ")
                .append(bytesUp.sum())
                .append('\n');
        out.append("portcullis_bytes_total{direction=\"down\"} ")
                .append(bytesDown.sum())
                .append('\n');
        Map<String, Integer> open = new TreeMap<>(gauges.openConnections());
        header(out, "portcullis_open_connections", "gauge", "Open connections, by spawn.");
        open.forEach((spawn, count) -> out.append("portcullis_open_connections{spawn=\"")
                .append(escape(spawn))
                .append("\"} ")
                .append(count)
                .append('\n'));
        header(out, "portcullis_spawns_open", "gauge", "Spawns open.");
        out.append("portcullis_spawns_open ").append(open.size()).append('\n');
        header(
                out,
                "portcullis_config_generation",
                "gauge",
                "The host configuration generation that new connections use.");
        out.append("portcullis_config_generation ").append(gauges.generation()).append('\n');
        header(out, "portcullis_config_reloads_total", "counter", "Reloads of the host configuration, by result.");
        out.append("portcullis_config_reloads_total{result=\"ok\"} ")
                .append(reloadsOk.sum())
                .append('\n');
        out.append("portcullis_config_reloads_total{result=\"error\"} ")
                .append(reloadsFailed.sum())
                .append('\n');
        header(
                out,
                "portcullis_decision_lines_dropped_total",
                "counter",
                "Decision log lines that could not be written (a full disk, a failing file).");
        out.append("portcullis_decision_lines_dropped_total ")
                .append(sinks.stream().mapToLong(DecisionSink::dropped).sum())
                .append('\n');
        decision.write(out);
        dns.write(out);
        owner.write(out);
        connect.write(out);
        return out.toString();
    }

    private static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
