package io.portcullis.relay.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.testing.Decisions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetricsTest {
    private static final Metrics.Gauges GAUGES = new Metrics.Gauges() {
        @Override
        public Map<String, Integer> openConnections() {
            return Map.of("studio", 2, "kiosk", 0);
        }

        @Override
        public long generation() {
            return 3;
        }
    };

    private static Decision decision(String kind, String verdict, String code, long up, long down) {
        return Decisions.decision()
                .kind(kind)
                .verdict(verdict, code)
                .bytes(up, down)
                .generation(3)
                .build();
    }

    @ParameterizedTest(name = "{0} ns -> le {1}")
    @CsvSource({
        "0, 1.0E-4",
        "100000, 1.0E-4",
        "100001, 2.5E-4",
        "1000000, 0.001",
        "10000000000, 10.0",
        "10000000001, +Inf"
    })
    void anObservationFallsInTheFirstBucketThatHoldsIt(long nanos, String bucket) {
        Metrics metrics = new Metrics();
        metrics.dns().observe(nanos);

        String text = metrics.text(GAUGES);

        String first = text.lines()
                .filter(line -> line.startsWith("portcullis_dns_seconds_bucket") && line.endsWith(" 1"))
                .findFirst()
                .orElseThrow();
        assertEquals("portcullis_dns_seconds_bucket{le=\"" + bucket + "\"} 1", first);
        assertTrue(text.contains("portcullis_dns_seconds_count 1\n"));
    }

    @Test
    void connectionsAreCountedFromTheirDecisionLines() {
        Metrics metrics = new Metrics();
        DecisionSink sink = metrics.counting(decision -> {});
        sink.accept(decision("proxy", "allow", null, 10, 200));
        sink.accept(decision("proxy", "allow", null, 5, 0));
        sink.accept(decision("forward", "deny", "owner-none", 0, 0));

        String text = metrics.text(GAUGES);

        assertTrue(
                text.contains("portcullis_connections_total{code=\"none\",kind=\"proxy\",verdict=\"allow\"} 2.0\n"),
                text);
        assertTrue(
                text.contains(
                        "portcullis_connections_total{code=\"owner-none\",kind=\"forward\",verdict=\"deny\"} 1.0\n"),
                text);
        assertTrue(text.contains("portcullis_open_connections{spawn=\"studio\"} 2.0\n"), text);
        assertTrue(text.contains("portcullis_spawns_open 2.0\n"), text);
        assertTrue(text.contains("portcullis_config_generation 3.0\n"), text);
    }

    /**
     * Issue 25 #7: bytes were added from each decision record, when its connection closed, so a
     * tunnel that had moved 100 kB showed 0. They are counted as they move, and a record adds
     * nothing more when it ends.
     */
    @Test
    void bytesAndAcceptedConnectionsAreCountedAsTheyMoveNotWhenTheConnectionEnds() {
        Metrics metrics = new Metrics();
        DecisionSink sink = metrics.counting(decision -> {});
        Traffic studio = metrics.spawnTraffic();
        Traffic kiosk = metrics.spawnTraffic();
        studio.accepted();
        kiosk.accepted();
        studio.up(100_000);
        studio.down(7);
        kiosk.down(3);

        String open = metrics.text(GAUGES);
        sink.accept(decision("proxy", "allow", null, 100_000, 7));
        String ended = metrics.text(GAUGES);

        for (String text : List.of(open, ended)) {
            assertTrue(text.contains("portcullis_bytes_total{direction=\"up\"} 100000.0\n"), text);
            assertTrue(text.contains("portcullis_bytes_total{direction=\"down\"} 10.0\n"), text);
            assertTrue(text.contains("portcullis_connections_accepted_total 2.0\n"), text);
        }
        assertEquals(List.of(1L, 100_000L, 7L), List.of(studio.connections(), studio.bytesUp(), studio.bytesDown()));
        assertEquals(List.of(1L, 0L, 3L), List.of(kiosk.connections(), kiosk.bytesUp(), kiosk.bytesDown()));
    }
}
