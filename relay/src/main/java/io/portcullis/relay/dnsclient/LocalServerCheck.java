package io.portcullis.relay.dnsclient;

import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.owner.PortHolders;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.rules.OwnAddresses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Whether a server the relay itself talks to (the upstream proxy, a DNS server) may be sent a
 * byte (SPEC R25). A server on this host (loopback, or one of this host's own addresses, R15, in
 * any IPv4-mapped form) must have its port held by uids the host configuration trusts for it
 * ({@link HostConfig.HolderUids}), else it is refused and nothing is sent: another local user who
 * bound the port while the server was down would receive the proxy's credentials and every
 * tunnel, or choose the addresses of listed names. Who holds the port is asked of {@link
 * PortHolders}, whose answers are reused for the owner check's window (R35); a server elsewhere is
 * not asked. Never blocks; never completes exceptionally.
 */
public final class LocalServerCheck {
    /** How a DNS server is named in a refusal. */
    public static final String DNS_SERVER = "the DNS server";

    /** How the upstream proxy is named in a refusal. */
    public static final String UPSTREAM_PROXY = "the upstream proxy";

    private final String what;
    private final PortHolders holders;
    private final HostConfig.HolderUids uids;
    private final Supplier<OwnAddresses> own;
    private final int relayUid;

    /**
     * @param what the kind of server, for the refusal ("the upstream proxy", "the DNS server")
     * @param own this host's own addresses, read at each check
     * @param relayUid the uid this relay runs as ({@link #processUid()})
     */
    public LocalServerCheck(
            String what, PortHolders holders, HostConfig.HolderUids uids, Supplier<OwnAddresses> own, int relayUid) {
        this.what = Objects.requireNonNull(what, "what");
        this.holders = Objects.requireNonNull(holders, "holders");
        this.uids = Objects.requireNonNull(uids, "uids");
        this.own = Objects.requireNonNull(own, "own");
        this.relayUid = relayUid;
    }

    /**
     * The check of DNS servers {@code config} names, on this host's kernel, with loopback and
     * the unspecified addresses as this host's only own addresses.
     */
    public static LocalServerCheck dns(HostConfig.Dns config) {
        return new LocalServerCheck(
                DNS_SERVER,
                OwnerChecks.portHolders(OwnerConfig.DEFAULT_CACHE_WINDOW),
                config.uids(),
                () -> OwnAddresses.NONE,
                processUid());
    }

    /**
     * Why {@code server} may not be sent a byte over {@code protocol}; empty when it may. A
     * failure to tell who holds the port is a refusal.
     */
    public CompletableFuture<Optional<String>> refusal(PortHolders.Protocol protocol, InetSocketAddress server) {
        return judge(protocol, server).thenApply(refusal -> refusal.map(Refusal::detail));
    }

    /**
     * Why a server may not be sent a byte.
     *
     * @param absent whether nothing holds its port: the server is not there, rather than distrusted
     */
    public record Refusal(String detail, boolean absent) {}

    /** As {@link #refusal}, saying also whether the server is simply not there. */
    public CompletableFuture<Optional<Refusal>> judge(PortHolders.Protocol protocol, InetSocketAddress server) {
        try {
            if (!own.get().contains(server.getAddress())) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            String named = what + " " + Target.text(server) + " ("
                    + protocol.name().toLowerCase(Locale.ROOT) + ") is on this host, and ";
            return holders.holders(protocol, server.getAddress(), server.getPort())
                    .handle((held, failure) -> failure != null
                            ? Optional.of(
                                    new Refusal(named + "who holds its port could not be read: " + failure, false))
                            : uids.refusal(held.sockets(), held.privilegedPort(), relayUid)
                                    .map(why -> new Refusal(
                                            named + why, held.sockets().isEmpty())));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(
                    Optional.of(new Refusal(what + " " + server + ": the check failed: " + e, false)));
        }
    }

    /** The effective uid of this process, from {@code /proc/self/status}. */
    public static int processUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseUnsignedInt(line.substring(4).strip().split("\\s+")[1]);
                }
            }
            throw new IOException("/proc/self/status: no Uid line");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
