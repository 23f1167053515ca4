package io.portcullis.relay.judge;

import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This host's own addresses, kept current (SPEC R15): every interface address, the configured
 * addresses, and what the configured own names resolve to. Readers get an immutable snapshot;
 * {@link #refresh()} builds the next one. A failed read keeps the last addresses it had, so a
 * passing failure never shrinks the set. An own name whose last lookup did not resolve (NXDOMAIN,
 * a timeout, no address) is named in the snapshot until a lookup resolves it: the internet shape
 * then refuses every target (R15), and the periodic refresh keeps trying. Before the first
 * refresh every own name counts as unresolved.
 *
 * <p>What the operator must know is said once, when it changes: a warning naming the own names
 * that stopped resolving (or never did) and why, and a line when they all resolve again; a refresh
 * that changes nothing says nothing.
 */
public final class OwnAddressBook implements Supplier<OwnAddresses>, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OwnAddressBook.class);

    /** Lists the addresses of this host's interfaces. */
    @FunctionalInterface
    public interface Interfaces {
        List<InetAddress> addresses() throws SocketException;

        /** The JDK's view: every address of every interface, up or down. */
        static Interfaces jdk() {
            return () -> {
                List<InetAddress> all = new ArrayList<>();
                for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    all.addAll(Collections.list(nic.getInetAddresses()));
                }
                return all;
            };
        }
    }

    private final List<InetAddress> configured;
    private final List<String> names;
    private final Interfaces interfaces;
    private final Resolver resolver;
    private final Map<String, List<InetAddress>> lastByName = new LinkedHashMap<>();
    /** Guarded by {@code lastByName}. */
    private final Set<String> unresolved = new HashSet<>();
    /** Why each unresolved name did not resolve, at its last lookup; guarded by {@code lastByName}. */
    private final Map<String, String> why = new TreeMap<>();
    /** The unresolved names the log last named; guarded by {@code lastByName}. */
    private Set<String> said = Set.of();

    private volatile List<InetAddress> lastInterfaces = List.of();
    private volatile OwnAddresses current;
    private volatile @Nullable ScheduledFuture<?> schedule;

    public OwnAddressBook(HostConfig host, Interfaces interfaces, Resolver resolver) {
        this.configured = host.ownAddresses();
        this.names = host.ownNames();
        this.interfaces = interfaces;
        this.resolver = resolver;
        this.unresolved.addAll(names);
        this.current = new OwnAddresses(Set.copyOf(configured), Set.copyOf(names));
    }

    @Override
    public OwnAddresses get() {
        return current;
    }

    /** Reads the interfaces and resolves the own names; completes with the new snapshot. */
    public CompletableFuture<OwnAddresses> refresh() {
        try {
            lastInterfaces = List.copyOf(interfaces.addresses());
        } catch (SocketException | RuntimeException e) {
            // Keep the last interface addresses: a passing failure must not shrink the set.
        }
        // The interfaces at once, before the own names resolve: a DNS server on one of them is
        // this host's own for those very lookups (R25).
        current = snapshot();
        List<CompletableFuture<?>> lookups = new ArrayList<>();
        for (String name : names) {
            lookups.add(resolver.resolve(name).whenComplete((resolution, failure) -> {
                boolean resolved = failure == null
                        && resolution.status() == Resolution.Status.RESOLVED
                        && !resolution.addresses().isEmpty();
                synchronized (lastByName) {
                    if (resolved) {
                        lastByName.put(name, resolution.addresses());
                        unresolved.remove(name);
                        why.remove(name);
                    } else {
                        unresolved.add(name);
                        why.put(name, failure != null ? String.valueOf(failure) : resolution.detail());
                    }
                }
            }));
        }
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new))
                .handle((ignored, failure) -> {
                    OwnAddresses next = snapshot();
                    current = next;
                    say(next.unresolvedNames());
                    return next;
                });
    }

    /**
     * Says that the first lookups have not ended after {@code waited} (a silent server): the own
     * names count as unresolved meanwhile. The lookups go on; what they end with is said if it
     * differs.
     */
    public void sayPending(Duration waited) {
        synchronized (lastByName) {
            Set<String> pending = Set.copyOf(unresolved);
            if (pending.isEmpty() || pending.equals(said)) {
                return;
            }
            Map<String, String> reasons = new TreeMap<>();
            pending.forEach(name -> reasons.put(name, "no answer yet after " + waited.toMillis() + " ms"));
            log.atWarn().addKeyValue("names", new TreeSet<>(pending).toString()).log(unresolvedLine(reasons));
            said = pending;
        }
    }

    private void say(Set<String> now) {
        Optional<String> line;
        synchronized (lastByName) {
            line = change(said, now, why);
            said = Set.copyOf(now);
        }
        if (line.isEmpty()) {
            return;
        }
        if (now.isEmpty()) {
            log.info(line.get());
        } else {
            log.atWarn().addKeyValue("names", new TreeSet<>(now).toString()).log(line.get());
        }
    }

    /**
     * What to say when the unresolved own names were {@code said} and are {@code now}: nothing
     * when they are the same; a warning line naming each with why; or that they resolve again. Pure.
     */
    static Optional<String> change(Set<String> said, Set<String> now, Map<String, String> why) {
        if (said.equals(now)) {
            return Optional.empty();
        }
        if (now.isEmpty()) {
            return Optional.of("own names resolve again (" + String.join(", ", new TreeSet<>(said))
                    + "): the internet shape judges targets again");
        }
        Map<String, String> reasons = new TreeMap<>();
        now.forEach(name -> reasons.put(name, reason(name, why.getOrDefault(name, "not resolved"))));
        return Optional.of(unresolvedLine(reasons));
    }

    /** A resolver's detail without the name it starts with, which the line says already. */
    private static String reason(String name, String detail) {
        return detail.startsWith(name + ": ") ? detail.substring(name.length() + 2) : detail;
    }

    private static String unresolvedLine(Map<String, String> reasons) {
        StringBuilder line = new StringBuilder("own names do not resolve: ");
        String separator = "";
        for (Map.Entry<String, String> reason : reasons.entrySet()) {
            line.append(separator)
                    .append(reason.getKey())
                    .append(" (")
                    .append(reason.getValue())
                    .append(')');
            separator = ", ";
        }
        return line.append("; until they do, the internet shape refuses every target (own-names-unresolved);"
                        + " listed entries are unaffected; they are looked up again every few seconds")
                .toString();
    }

    /** The configured addresses, the last interface addresses and what the names last resolved to. */
    private OwnAddresses snapshot() {
        Set<InetAddress> all = new HashSet<>(configured);
        all.addAll(lastInterfaces);
        Set<String> failed;
        synchronized (lastByName) {
            lastByName.values().forEach(all::addAll);
            failed = Set.copyOf(unresolved);
        }
        return new OwnAddresses(all, failed);
    }

    /** Refreshes every {@code period} on {@code scheduler} (an event loop will do) until closed. */
    public void refreshEvery(ScheduledExecutorService scheduler, Duration period) {
        schedule = scheduler.scheduleWithFixedDelay(
                this::refresh, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        ScheduledFuture<?> running = schedule;
        if (running != null) {
            running.cancel(false);
        }
    }
}
