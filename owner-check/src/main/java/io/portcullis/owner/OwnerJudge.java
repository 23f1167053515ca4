package io.portcullis.owner;

import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.docker.DockerDownException;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.owner.kernel.Answering;
import io.portcullis.owner.kernel.ProcessInfo;
import io.portcullis.owner.kernel.TcpListener;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One owner check, synchronously, in the order of SPEC R30-R34: a container's own address (for an
 * address that is not this host's own, the container alone decides; Docker down is
 * {@code owner-docker-down}); the listeners that could answer (none: {@code owner-none}); each
 * judged by its uid, the first refusal being the answer. A root listener that Docker cannot be
 * asked about is refused as root's ({@code owner-root}) unless Docker's own proxy holds it
 * ({@link OwnerRules#rootWithoutDocker}). Every failure is a refusal. Blocking:
 * callers run it on the check's executor.
 */
final class OwnerJudge {
    private static final Comparator<TcpListener> ORDER = Comparator.comparing(TcpListener::family)
            .thenComparing(l -> l.address().getHostAddress())
            .thenComparingLong(TcpListener::inode);

    private final OwnerConfig config;
    private final OwnerRules rules;
    private final Sources sources;

    OwnerJudge(OwnerConfig config, WallProcesses wall, Sources sources) {
        this.config = config;
        this.rules = new OwnerRules(config, wall);
        this.sources = sources;
    }

    OwnerAnswer answer(OwnerQuery query) {
        Seen seen = new Seen();
        try {
            return judge(query, seen);
        } catch (DockerDownException e) {
            return OwnerAnswer.deny(OwnerCode.DOCKER_DOWN, String.valueOf(e.getMessage()), seen.evidence());
        } catch (Exception | LinkageError | StackOverflowError e) {
            return OwnerAnswer.deny(OwnerCode.ERROR, String.valueOf(e), seen.evidence());
        }
    }

    DockerNetworks dockerNetworks() {
        return sources.docker().networks();
    }

    private OwnerAnswer judge(OwnerQuery query, Seen seen) throws Exception {
        InetAddress target = delivered(query.address());
        boolean hostOwn = query.hostOwn() || target.isLoopbackAddress();
        boolean dockerDown = false;
        if (!target.isLoopbackAddress()) {
            try {
                Optional<ContainerInfo> own = ownerOf(target);
                if (own.isPresent()) {
                    seen.container = own.get();
                    Optional<Refusal> refusal = rules.container(query, own.get());
                    if (refusal.isPresent()) {
                        return deny(refusal.get(), seen);
                    }
                    if (!hostOwn) {
                        return OwnerAnswer.allow(allowedBecause(query, seen), seen.evidence());
                    }
                    // Also this host's own: the host's listeners answer it, so they are judged too (R32).
                } else if (!hostOwn) {
                    return OwnerAnswer.allow(
                            "no running container has " + target.getHostAddress()
                                    + ", and it is not this host's: the listing decides",
                            seen.evidence());
                }
            } catch (DockerDownException e) {
                if (!hostOwn) {
                    return deny(
                            new Refusal(
                                    OwnerCode.DOCKER_DOWN,
                                    target.getHostAddress()
                                            + " is in a Docker network, and Docker cannot say which container has it"),
                            seen);
                }
                dockerDown = true;
            }
        }
        List<TcpListener> listeners = new ArrayList<>(
                Answering.answering(sources.listeners().listening(query.port()), target, sources.loopbackIndex()));
        listeners.sort(ORDER);
        seen.listeners = listeners;
        if (listeners.isEmpty()) {
            return dockerDown
                    ? deny(
                            new Refusal(
                                    OwnerCode.DOCKER_DOWN,
                                    "nothing listens, and Docker cannot say whether a container has the address"),
                            seen)
                    : deny(
                            new Refusal(
                                    OwnerCode.NONE,
                                    "nothing listens on " + target.getHostAddress() + " port " + query.port()),
                            seen);
        }
        for (TcpListener listener : listeners) {
            Optional<Refusal> refusal = listener(query, listener, seen);
            if (refusal.isPresent()) {
                return deny(refusal.get(), seen);
            }
        }
        if (listeners.stream().noneMatch(l -> Answering.surely(l, target))) {
            // V6ONLY unread: judged as off above, and as on here, where nobody answers. Any refusal wins.
            return deny(
                    new Refusal(
                            OwnerCode.NONE,
                            "only :: listeners whose V6ONLY the /proc fallback cannot read could answer "
                                    + target.getHostAddress() + " port " + query.port()),
                    seen);
        }
        return OwnerAnswer.allow(allowedBecause(query, seen), seen.evidence());
    }

    /** A connection to the unspecified address reaches the loopback address of its family. */
    static InetAddress delivered(InetAddress address) {
        if (!address.isAnyLocalAddress()) {
            return address;
        }
        return address instanceof Inet6Address ? InetAddress.ofLiteral("::1") : InetAddress.ofLiteral("127.0.0.1");
    }

    private Optional<Refusal> listener(OwnerQuery query, TcpListener listener, Seen seen) throws Exception {
        if (isGatewayUser(listener)) {
            if (seen.holders == null) {
                Set<Long> inodes = seen.listeners.stream()
                        .filter(this::isGatewayUser)
                        .map(TcpListener::inode)
                        .collect(Collectors.toSet());
                seen.holders = sources.processes().holding(inodes, config.gatewayUid());
            }
            List<ProcessInfo> holders = seen.holders.getOrDefault(listener.inode(), List.of());
            for (ProcessInfo holder : holders) {
                if (seen.processes.size() < Evidence.PROCESSES) {
                    seen.processes.add(Evidence.process(holder, listener.inode()));
                }
            }
            return rules.gatewayUser(query.source(), holders);
        }
        if (listener.uid() == 0) {
            Optional<ContainerInfo> publisher;
            try {
                publisher = publisher(delivered(query.address()), query.port());
            } catch (DockerDownException e) {
                return Optional.of(OwnerRules.rootWithoutDocker(
                        rootHolders(listener, seen), Objects.requireNonNullElse(e.getMessage(), e.toString())));
            }
            if (publisher.isEmpty()) {
                return Optional.of(new Refusal(OwnerCode.ROOT, "a root socket that no running container publishes"));
            }
            seen.container = publisher.get();
            return rules.container(query, publisher.get());
        }
        return Optional.of(new Refusal(OwnerCode.OTHER_USER, "the socket belongs to uid " + listener.uid()));
    }

    /**
     * Who holds a root listener, for a refusal when Docker cannot say whether a container publishes
     * it; empty when they cannot be read (a relay that is not root may not read root's descriptors).
     */
    private Optional<List<ProcessInfo>> rootHolders(TcpListener listener, Seen seen) {
        try {
            List<ProcessInfo> holders =
                    sources.processes().holding(Set.of(listener.inode()), 0).getOrDefault(listener.inode(), List.of());
            for (ProcessInfo holder : holders) {
                if (seen.processes.size() < Evidence.PROCESSES) {
                    seen.processes.add(Evidence.process(holder, listener.inode()));
                }
            }
            return holders.isEmpty() ? Optional.empty() : Optional.of(holders);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private boolean isGatewayUser(TcpListener listener) {
        return config.gatewayUid() >= 0 && listener.uid() == config.gatewayUid();
    }

    private Optional<ContainerInfo> publisher(InetAddress target, int port) throws DockerDownException {
        return find(c -> c.publishes(target, port));
    }

    private Optional<ContainerInfo> ownerOf(InetAddress target) throws DockerDownException {
        return find(c -> c.addresses().contains(target));
    }

    /** The view may lag the events stream: a miss asks Docker again before it counts. */
    private Optional<ContainerInfo> find(Predicate<ContainerInfo> test) throws DockerDownException {
        Optional<ContainerInfo> found = first(sources.docker().containers(false), test);
        return found.isPresent() ? found : first(sources.docker().containers(true), test);
    }

    private static Optional<ContainerInfo> first(List<ContainerInfo> containers, Predicate<ContainerInfo> test) {
        return containers.stream().filter(test).min(Comparator.comparing(ContainerInfo::id));
    }

    private static OwnerAnswer deny(Refusal refusal, Seen seen) {
        return OwnerAnswer.deny(refusal.code(), refusal.detail(), seen.evidence());
    }

    private static String allowedBecause(OwnerQuery query, Seen seen) {
        return seen.container != null
                ? "container " + seen.container.name() + " belongs to add-on " + query.addonId() + " or its exceptions"
                : "the add-on's own service of the gateway's user";
    }

    /** What one check saw so far; refusals carry it too. */
    private static final class Seen {
        List<TcpListener> listeners = List.of();
        /** Every gateway-user listener's holders, from one scan; null until needed. */
        @Nullable
        Map<Long, List<ProcessInfo>> holders;

        final List<OwnerEvidence.Process> processes = new ArrayList<>();

        @Nullable
        ContainerInfo container;

        OwnerEvidence evidence() {
            return new OwnerEvidence(
                    listeners.stream().map(Evidence::listener).toList(),
                    processes,
                    container == null ? null : Evidence.container(container));
        }
    }
}
