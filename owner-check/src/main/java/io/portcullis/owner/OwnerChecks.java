package io.portcullis.owner;

import com.github.benmanes.caffeine.cache.Ticker;
import io.portcullis.owner.docker.DockerApiView;
import io.portcullis.owner.kernel.ListenerSource;
import io.portcullis.owner.kernel.ProcRoot;
import io.portcullis.owner.kernel.ProcessSource;
import java.time.Duration;

/** Builds the owner check of this host. */
public final class OwnerChecks {
    /** How often the Docker view re-lists even when the events stream is quiet. */
    static final Duration RELIST_EVERY = Duration.ofSeconds(30);
    /** After this a check is refused rather than awaited. */
    static final Duration DEADLINE = Duration.ofSeconds(5);

    private OwnerChecks() {}

    /**
     * The owner check over this host's kernel (netlink sock_diag, else {@code /proc/net}), its
     * {@code /proc}, and the Docker engine at {@code config.dockerEndpoint()}. It owns its executor,
     * its Docker view and its cache. Nothing here needs Docker to be up.
     *
     * @throws IllegalArgumentException when {@code config.dockerEndpoint()} is not a Docker endpoint URI
     */
    public static ManagedOwnerCheck system(OwnerConfig config, WallProcesses wall) {
        DockerApiView docker = new DockerApiView(config.dockerEndpoint(), RELIST_EVERY);
        Sources sources = new Sources(
                ListenerSource.system(ProcRoot.SYSTEM),
                ProcessSource.system(ProcRoot.SYSTEM),
                docker,
                Devices.loopbackIndex());
        return new CachedOwnerCheck(
                new OwnerJudge(config, wall, sources), config.cacheWindow(), DEADLINE, Ticker.systemTicker(), docker);
    }

    /**
     * Who holds a port of this host, read from its kernel (netlink sock_diag, else {@code /proc/net})
     * on a process-wide daemon thread, each answer reused for {@code window} (SPEC R35, the owner
     * check's {@code owner.cacheMillis}). Nothing to close.
     */
    public static PortHolders portHolders(Duration window) {
        return new SystemPortHolders(
                ListenerSource.system(ProcRoot.SYSTEM), ProcRoot.SYSTEM, Devices.loopbackIndex(), window, DEADLINE);
    }
}
