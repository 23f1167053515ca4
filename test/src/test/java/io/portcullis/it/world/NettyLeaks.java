package io.portcullis.it.world;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Makes a Netty leak in the test JVM a test failure, not a log line: installed before any test
 * runs (a launcher session listener, so before Netty builds its detectors), it records every
 * reported leak; {@link #assertNone} collects garbage, lets the detectors report, and fails
 * listing what leaked.
 */
public final class NettyLeaks implements LauncherSessionListener {
    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new Factory());
    }

    /** Fails when any leak was reported since the last call; leaks are reported only once. */
    public static void assertNone() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(20);
            // A detector reports what the collector found only when it tracks a new object.
            for (int i = 0; i < 8; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
        }
        List<String> leaks = new ArrayList<>();
        for (String leak; (leak = LEAKS.poll()) != null; ) {
            leaks.add(leak);
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty resource leak(s):\n" + String.join("\n", leaks));
        }
    }

    private static final class Factory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation") // The abstract method Netty calls; its replacement is not abstract.
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                Class<T> resource, int samplingInterval, long maxActive) {
            return new Recording<>(resource, samplingInterval);
        }
    }

    private static final class Recording<T> extends ResourceLeakDetector<T> {
        Recording(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK: " + resourceType + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK: " + resourceType + " (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
