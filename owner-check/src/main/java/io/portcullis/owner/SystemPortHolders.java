package io.portcullis.owner;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.portcullis.owner.checks.Checks;
import io.portcullis.owner.kernel.Answering;
import io.portcullis.owner.kernel.ListenerSource;
import io.portcullis.owner.kernel.ProcRoot;
import io.portcullis.owner.kernel.TcpListener;
import io.portcullis.owner.kernel.UnprivilegedPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * This host's port holders, read from the kernel on an executor and cached for a short window
 * (SPEC R35), so a port that changes hands is seen within the window. The executor is one daemon
 * thread for the whole process, shared by every instance: each configuration generation builds its
 * own holders, and none of them owns a thread that must be stopped.
 */
final class SystemPortHolders implements PortHolders {
    private static final long MAX_ANSWERS = 1_000;

    private final ListenerSource sources;
    private final ProcRoot root;
    private final int loopbackIndex;
    private final Duration deadline;
    /** Null for a zero window: every question reads the kernel again. */
    private final @Nullable AsyncLoadingCache<Key, Holders> cache;

    private record Key(Protocol protocol, InetAddress address, int port) {}

    SystemPortHolders(ListenerSource sources, ProcRoot root, int loopbackIndex, Duration window, Duration deadline) {
        this.sources = sources;
        this.root = root;
        this.loopbackIndex = loopbackIndex;
        this.deadline = deadline;
        this.cache = window.isZero()
                ? null
                : Caffeine.newBuilder()
                        .executor(Shared.EXECUTOR)
                        .ticker(Ticker.systemTicker())
                        .expireAfterWrite(window)
                        .maximumSize(MAX_ANSWERS)
                        .buildAsync(this::read);
    }

    @Override
    public CompletableFuture<Holders> holders(Protocol protocol, InetAddress address, int port) {
        try {
            Checks.port("port", port);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        Key key = new Key(protocol, Answering.unmapped(address), port);
        try {
            CompletableFuture<Holders> read =
                    cache == null ? CompletableFuture.supplyAsync(() -> read(key), Shared.EXECUTOR) : cache.get(key);
            // A copy, so that the caller's timeout never completes the cached future.
            return read.thenApply(holders -> holders)
                    .orTimeout(deadline.toNanos(), TimeUnit.NANOSECONDS)
                    .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                            failure instanceof TimeoutException
                                    ? new IOException("who holds " + key.protocol() + " "
                                            + key.address().getHostAddress() + " port " + key.port()
                                            + " was not read within " + deadline)
                                    : failure));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Blocking: on the executor. */
    private Holders read(Key key) {
        try {
            List<TcpListener> all =
                    key.protocol() == Protocol.TCP ? sources.listening(key.port()) : sources.udp(key.port());
            List<OwnerEvidence.Listener> holding =
                    Answering.answering(all, OwnerJudge.delivered(key.address()), loopbackIndex).stream()
                            .map(Evidence::listener)
                            .toList();
            return new Holders(holding, key.port() < unprivilegedStart());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 0 when unreadable: no port then counts as privileged, which only ever refuses more. */
    private int unprivilegedStart() {
        try {
            return UnprivilegedPorts.start(root);
        } catch (IOException e) {
            return 0;
        }
    }

    /** The process-wide executor, started on first use. */
    private static final class Shared {
        static final Executor EXECUTOR = executor();

        private static ExecutorService executor() {
            return Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "port-holders");
                t.setDaemon(true);
                return t;
            });
        }
    }
}
