package io.portcullis.relay.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.netty.channel.embedded.EmbeddedChannel;
import io.portcullis.relay.record.ConnectionRecord;
import java.lang.management.ManagementFactory;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the copy's hot path pays to count as bytes move (issue 25 #7): plain adds, nothing allocated. */
class TrafficTest {
    /** Few enough that the reads run interpreted or barely compiled: no escape analysis hides an allocation. */
    private static final int READS = 20_000;

    private static final Metrics.Gauges NO_GAUGES = new Metrics.Gauges() {
        @Override
        public Map<String, Integer> openConnections() {
            return Map.of();
        }

        @Override
        public long generation() {
            return 1;
        }
    };

    /**
     * Each read of a tunnel's side counts its bytes in the connection's record, its spawn's traffic
     * and the relay's: that must stay a few adds, with no allocation (no boxing, no lambda per read),
     * or every tunnel would feed the garbage collector.
     */
    @Test
    void countingAReadAllocatesNothing() {
        Metrics metrics = new Metrics();
        Traffic spawn = metrics.spawnTraffic();
        EmbeddedChannel channel = new EmbeddedChannel();
        ConnectionRecord record =
                ConnectionRecord.attach(channel, "studio", 1, InstantSource.system(), decision -> {}, spawn);
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        record.up(0);
        record.down(0);

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < READS; i++) {
            record.up(1460);
            record.down(1460);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertTrue(allocated < 4096, allocated + " bytes allocated for " + READS + " reads each way");
        long carried = (long) READS * 1460;
        assertEquals(List.of(carried, carried), List.of(spawn.bytesUp(), spawn.bytesDown()));
        assertTrue(metrics.text(NO_GAUGES).contains("portcullis_bytes_total{direction=\"up\"} " + (double) carried));
        channel.finishAndReleaseAll();
    }
}
