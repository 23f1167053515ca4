package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Ticker;
import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.docker.DockerDownException;
import io.portcullis.owner.docker.DockerView;
import io.portcullis.owner.kernel.ListenerSource;
import io.portcullis.owner.kernel.ProcRoot;
import io.portcullis.owner.kernel.ProcessSource;
import io.portcullis.owner.kernel.TcpListener;
import io.portcullis.owner.testing.PythonListener;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The cache window (R35), fail-closed failures (R34) and a caller that never blocks. */
class CachedOwnerCheckTest {
    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration SHORT_DEADLINE = Duration.ofMillis(500);
    private static final InetAddress LOOPBACK = OwnerCheckTest.LOOPBACK;
    private static final InetAddress V6_LOOPBACK = InetAddress.ofLiteral("::1");
    private static final OwnerConfig CONFIG =
            OwnerCheckTest.config(Path.of("/nonexistent-root"), Path.of("/nonexistent.sock"));
    private static final DockerView NO_DOCKER = fresh -> {
        throw new DockerDownException("docker: not in this test", null);
    };

    private final AtomicLong nanos = new AtomicLong();
    private final Ticker ticker = nanos::get;

    private ManagedOwnerCheck check(ListenerSource listeners, ProcessSource processes) {
        return check(listeners, processes, WINDOW);
    }

    private ManagedOwnerCheck check(ListenerSource listeners, ProcessSource processes, Duration window) {
        return check(listeners, processes, window, DEADLINE);
    }

    private ManagedOwnerCheck check(
            ListenerSource listeners, ProcessSource processes, Duration window, Duration deadline) {
        Sources sources = new Sources(listeners, processes, NO_DOCKER, 1);
        return new CachedOwnerCheck(
                new OwnerJudge(CONFIG, new WallProcesses(), sources), window, deadline, ticker, () -> {});
    }

    private ManagedOwnerCheck system() {
        return check(ListenerSource.system(ProcRoot.SYSTEM), ProcessSource.system(ProcRoot.SYSTEM));
    }

    /** Nothing listens, once {@code latch} opens (or after 10 s). */
    private static ListenerSource waitingFor(CountDownLatch latch) {
        return port -> {
            try {
                latch.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of();
        };
    }

    /** Nothing listens; counts the questions. */
    private static ListenerSource counting(AtomicInteger asked) {
        return port -> {
            asked.incrementAndGet();
            return List.of();
        };
    }

    private static OwnerQuery query(Source source, int port) {
        return new OwnerQuery("studio", source, LOOPBACK, port);
    }

    @Test
    void aPortThatChangesHandsIsCaughtAfterTheWindow() {
        Path folder = PythonListener.openFolder("owner-cache");
        try (ManagedOwnerCheck check = system()) {
            int port;
            try (PythonListener addon = PythonListener.v4("127.0.0.1")
                    .uid(OwnerCheckTest.GATEWAY_UID)
                    .cwd(folder)
                    .start()) {
                port = addon.port();
                assertTrue(check.check(query(Source.OWNER, port)).join().allowed());
            }
            try (PythonListener other = PythonListener.v4("127.0.0.1")
                    .port(port)
                    .uid(OwnerCheckTest.OTHER_UID)
                    .start()) {
                assertEquals(port, other.port());
                assertTrue(check.check(query(Source.OWNER, port)).join().allowed(), "within the window");
                nanos.addAndGet(WINDOW.toNanos() + 1);
                assertEquals(
                        Optional.of(OwnerCode.OTHER_USER),
                        check.check(query(Source.OWNER, port)).join().code());
            }
        }
    }

    @Test
    void theProcFallbackFindsTheSameOwner() {
        Path folder = PythonListener.openFolder("owner-fallback");
        try (ManagedOwnerCheck check =
                        check(ListenerSource.procNet(ProcRoot.SYSTEM), ProcessSource.system(ProcRoot.SYSTEM));
                PythonListener addon = PythonListener.v6("::")
                        .uid(OwnerCheckTest.GATEWAY_UID)
                        .cwd(folder)
                        .start();
                PythonListener other = PythonListener.v4("127.0.0.1")
                        .uid(OwnerCheckTest.OTHER_UID)
                        .start()) {
            OwnerAnswer allowed = check.check(new OwnerQuery("studio", Source.OWNER, V6_LOOPBACK, addon.port()))
                    .join();
            assertTrue(allowed.allowed(), allowed::toString);
            assertEquals(addon.pid(), allowed.evidence().processes().getFirst().pid());
            assertEquals(null, allowed.evidence().listeners().getFirst().v6Only(), "the fallback cannot tell");
            assertEquals(
                    Optional.of(OwnerCode.DEFAULT_USER),
                    check.check(new OwnerQuery("studio", Source.DEFAULT, V6_LOOPBACK, addon.port()))
                            .join()
                            .code());
            assertEquals(
                    Optional.of(OwnerCode.OTHER_USER),
                    check.check(query(Source.OWNER, other.port())).join().code());
        }
    }

    /**
     * The fallback cannot read V6ONLY, so a {@code ::} socket is judged both ways for IPv4: as
     * dual-stack (it is judged) and as V6ONLY (nobody answers: {@code owner-none}). Any refusal wins.
     */
    @Test
    void theProcFallbackRefusesIpv4WhenOnlyADualStackOfUnreadV6OnlyCouldAnswer() {
        Path folder = PythonListener.openFolder("owner-fallback");
        try (ManagedOwnerCheck check =
                        check(ListenerSource.procNet(ProcRoot.SYSTEM), ProcessSource.system(ProcRoot.SYSTEM));
                PythonListener addon = PythonListener.v6("::")
                        .uid(OwnerCheckTest.GATEWAY_UID)
                        .cwd(folder)
                        .start()) {
            OwnerAnswer answer = check.check(query(Source.OWNER, addon.port())).join();
            assertEquals(Optional.of(OwnerCode.NONE), answer.code(), answer::toString);
            assertEquals(1, answer.evidence().listeners().size());
        }
    }

    /** Issue 9, item 1, on the fallback: the other uid's IPv4 socket refuses whatever V6ONLY is. */
    @Test
    void theProcFallbackJudgesAMappedTargetByTheIpv4ListenerToo() {
        Path folder = PythonListener.openFolder("owner-fallback");
        try (ManagedOwnerCheck check =
                        check(ListenerSource.procNet(ProcRoot.SYSTEM), ProcessSource.system(ProcRoot.SYSTEM));
                PythonListener addon = PythonListener.v6("::")
                        .v6Only()
                        .uid(OwnerCheckTest.GATEWAY_UID)
                        .cwd(folder)
                        .start();
                PythonListener other = PythonListener.v4("127.0.0.1")
                        .port(addon.port())
                        .uid(OwnerCheckTest.OTHER_UID)
                        .start()) {
            OwnerAnswer answer = check.check(
                            new OwnerQuery("studio", Source.OWNER, OwnerCheckTest.mapped(LOOPBACK), other.port()))
                    .join();
            assertEquals(Optional.of(OwnerCode.OTHER_USER), answer.code(), answer::toString);
        }
    }

    @Test
    void theKeyIsTheWholeQuery() {
        AtomicInteger asked = new AtomicInteger();
        ListenerSource counting = counting(asked);
        try (ManagedOwnerCheck check = check(counting, (inodes, uid) -> Map.of())) {
            check.check(query(Source.OWNER, 80)).join();
            check.check(query(Source.OWNER, 80)).join();
            check.check(query(Source.DEFAULT, 80)).join();
            check.check(query(Source.OWNER, 81)).join();
            check.check(new OwnerQuery("notes", Source.OWNER, LOOPBACK, 80)).join();
            assertEquals(4, asked.get());
        }
    }

    @Test
    void aZeroWindowAsksEveryTime() {
        AtomicInteger asked = new AtomicInteger();
        ListenerSource counting = counting(asked);
        try (ManagedOwnerCheck check = check(counting, (inodes, uid) -> Map.of(), Duration.ZERO)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(
                        Optional.of(OwnerCode.NONE),
                        check.check(query(Source.OWNER, 80)).join().code());
            }
            assertEquals(3, asked.get());
        }
    }

    @Test
    void theCallerNeverWaitsForTheKernel() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        ListenerSource slow = waitingFor(release);
        try (ManagedOwnerCheck check = check(slow, (inodes, uid) -> Map.of())) {
            CompletableFuture<OwnerAnswer> answer = check.check(query(Source.OWNER, 80));
            assertFalse(answer.isDone());
            release.countDown();
            assertEquals(Optional.of(OwnerCode.NONE), answer.join().code());
        }
    }

    @Test
    void aCheckThatNeverFinishesIsRefusedAtTheDeadline() {
        CountDownLatch never = new CountDownLatch(1);
        ListenerSource stuck = waitingFor(never);
        try (ManagedOwnerCheck check = check(stuck, (inodes, uid) -> Map.of(), WINDOW, SHORT_DEADLINE)) {
            long start = System.nanoTime();
            OwnerAnswer answer = check.check(query(Source.OWNER, 80)).join();
            assertEquals(Optional.of(OwnerCode.ERROR), answer.code());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos());
        } finally {
            never.countDown();
        }
    }

    @Test
    void aKernelFailureIsARefusal() {
        try (ManagedOwnerCheck check = check(
                port -> {
                    throw new IOException("sock_diag: errno 13");
                },
                (inodes, uid) -> Map.of())) {
            OwnerAnswer answer = check.check(query(Source.OWNER, 80)).join();
            assertEquals(Optional.of(OwnerCode.ERROR), answer.code());
            assertTrue(answer.detail().contains("errno 13"), answer.detail());
        }
    }

    @Test
    void aBugIsARefusal() {
        try (ManagedOwnerCheck check = check(
                port -> {
                    throw new IllegalStateException("bug");
                },
                (inodes, uid) -> Map.of())) {
            assertEquals(
                    Optional.of(OwnerCode.ERROR),
                    check.check(query(Source.OWNER, 80)).join().code());
        }
    }

    @Test
    void aProcessGoneMidScanIsARefusal() {
        ListenerSource one = port -> List.of(new TcpListener(
                TcpListener.Family.INET,
                LOOPBACK,
                false,
                port,
                OwnerCheckTest.GATEWAY_UID,
                42,
                TcpListener.V6Only.OFF,
                0));
        try (ManagedOwnerCheck check = check(one, (inodes, uid) -> {
            throw new IOException("process 7 went away mid-scan");
        })) {
            OwnerAnswer answer = check.check(query(Source.OWNER, 80)).join();
            assertEquals(Optional.of(OwnerCode.ERROR), answer.code());
            assertEquals(1, answer.evidence().listeners().size());
        }
    }

    @Test
    void aClosedCheckRefuses() {
        ManagedOwnerCheck check = check(port -> List.of(), (inodes, uid) -> Map.of());
        check.close();
        assertEquals(
                Optional.of(OwnerCode.ERROR),
                check.check(query(Source.OWNER, 80)).join().code());
    }

    /** Regression: Caffeine's upkeep after the last answer was refused by the closed executor and logged. */
    @Test
    void closingRightAfterAnAnswerLeavesNoRefusedUpkeepWarning() {
        Logger caffeine = Logger.getLogger("com.github.benmanes.caffeine");
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        caffeine.addHandler(capture);
        try {
            for (int i = 0; i < 50; i++) {
                ManagedOwnerCheck check = check(port -> List.of(), (inodes, uid) -> Map.of());
                assertEquals(
                        Optional.of(OwnerCode.NONE),
                        check.check(query(Source.OWNER, 80)).join().code());
                check.close();
            }
        } finally {
            caffeine.removeHandler(capture);
        }
        assertEquals(
                List.of(),
                warnings.stream().map(r -> r.getMessage() + " " + r.getThrown()).toList());
    }
}
