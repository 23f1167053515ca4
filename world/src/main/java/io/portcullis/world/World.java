package io.portcullis.world;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Network namespaces of test hosts ({@link Site}s), each joined to the namespace this process runs
 * in by a veth pair, with routes for the sites' prefixes only. The process's own namespace must
 * have no route out: {@link #build} refuses to start in one that has, and checks every namespace
 * again once the links are up, so nothing can dial past the world.
 *
 * <p>One world per namespace: a second one would find the first one's routes and refuse.
 *
 * <p>Namespace names carry the creating process's pid, so a later world removes those whose
 * creator is gone ({@link #removeStale}) without touching a world that is still running.
 */
public final class World implements AutoCloseable {
    static final String NAME_PREFIX = "pcw-";
    private static final Path NETNS_DIR = Path.of("/run/netns");
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Map<Site, String> namespaces = new LinkedHashMap<>();
    private final Map<Site, String> devices = new LinkedHashMap<>();

    private World() {}

    /**
     * Builds the sites in this process's network namespace. Fails, leaving nothing behind, when
     * this namespace already routes anywhere but loopback, or when any step fails.
     */
    public static World build(List<Site> sites) throws IOException {
        removeStale();
        List<String> before = routeProblems(List.of(), Set.of(), List.of());
        if (!before.isEmpty()) {
            throw new IllegalStateException("this network namespace routes out, so a world may not be built in it"
                    + " (run it in a fresh namespace, e.g. `unshare --net`): " + String.join("; ", before));
        }
        World world = new World();
        try {
            Commands.run(List.of("ip", "link", "set", "lo", "up"));
            for (Site site : sites) {
                world.add(site);
            }
            world.verifyNoRouteOut();
            return world;
        } catch (IOException | RuntimeException e) {
            world.close();
            throw e;
        }
    }

    private void add(Site site) throws IOException {
        long pid = ProcessHandle.current().pid();
        int seq = SEQUENCE.incrementAndGet();
        String ns = NAME_PREFIX + pid + "-" + seq + "-" + site.role();
        String dev = "pw" + Long.toString(pid, 36) + Integer.toString(seq, 36)
                + site.role().charAt(0);
        Commands.run(List.of("ip", "netns", "add", ns));
        namespaces.put(site, ns);
        Commands.run(List.of("ip", "link", "add", dev, "type", "veth", "peer", "name", "eth0", "netns", ns));
        devices.put(site, dev);
        for (Prefix prefix : site.prefixes()) {
            addAddress(List.of(), dev, prefix.at(1), prefix);
        }
        Commands.run(List.of("ip", "link", "set", dev, "up"));
        Commands.run(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
        for (InetAddress host : site.hosts()) {
            addAddress(List.of("-n", ns), "eth0", host, Site.prefixOf(site.prefixes(), host));
        }
        Commands.run(List.of("ip", "-n", ns, "link", "set", "eth0", "up"));
    }

    private static void addAddress(List<String> where, String dev, InetAddress address, Prefix prefix)
            throws IOException {
        List<String> argv = new ArrayList<>(List.of("ip"));
        argv.addAll(where);
        argv.addAll(List.of("addr", "add", address.getHostAddress() + "/" + prefix.length(), "dev", dev));
        if (prefix.isIpv6()) {
            argv.add("nodad"); // Duplicate address detection would leave the address unusable for a second.
        }
        Commands.run(argv);
    }

    /** Checks this namespace and every site's namespace again; throws listing every route that leads out. */
    public void verifyNoRouteOut() throws IOException {
        List<Prefix> all =
                namespaces.keySet().stream().flatMap(s -> s.prefixes().stream()).toList();
        List<String> problems = new ArrayList<>(routeProblems(List.of(), new HashSet<>(devices.values()), all));
        for (Map.Entry<Site, String> entry : namespaces.entrySet()) {
            for (String problem : routeProblems(
                    List.of("-n", entry.getValue()),
                    Set.of("eth0"),
                    entry.getKey().prefixes())) {
                problems.add(entry.getValue() + ": " + problem);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the world routes out: " + String.join("; ", problems));
        }
    }

    private static List<String> routeProblems(List<String> where, Set<String> devices, List<Prefix> prefixes)
            throws IOException {
        List<String> problems = new ArrayList<>();
        for (String family : List.of("-4", "-6")) {
            List<String> argv = new ArrayList<>(List.of("ip", "-j", family));
            argv.addAll(where);
            argv.addAll(List.of("route", "show", "table", "all"));
            problems.addAll(RouteCheck.problems(Commands.run(argv), devices, prefixes));
        }
        return problems;
    }

    /** The namespace name of {@code site}, for {@code ip netns exec}. */
    public String namespace(Site site) {
        String ns = namespaces.get(site);
        if (ns == null) {
            throw new IllegalArgumentException("site: " + site.role() + " (expected: one of " + sites() + ")");
        }
        return ns;
    }

    /** The command line that runs {@code argv} inside {@code site}'s namespace. */
    public List<String> inNamespace(Site site, List<String> argv) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace(site)));
        command.addAll(argv);
        return command;
    }

    public List<Site> sites() {
        return List.copyOf(namespaces.keySet());
    }

    /** Whether {@code address} is a host of a site or the world's own side of a site's link. */
    public boolean owns(InetAddress address) {
        return namespaces.keySet().stream().anyMatch(site -> site.owns(address));
    }

    /** Removes every namespace; the veth pairs go with them. Never throws. */
    @Override
    public void close() {
        for (String ns : namespaces.values()) {
            deleteQuietly(ns);
        }
        namespaces.clear();
        devices.clear();
    }

    /** Removes the namespaces of worlds whose creating process no longer runs. */
    public static void removeStale() {
        if (!Files.isDirectory(NETNS_DIR)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(NETNS_DIR, NAME_PREFIX + "*")) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (isStale(name)) {
                    deleteQuietly(name);
                }
            }
        } catch (IOException e) {
            // Listing failed: nothing is removed; a leftover namespace has no route out and harms nothing.
        }
    }

    static boolean isStale(String name) {
        String[] parts = name.substring(NAME_PREFIX.length()).split("-");
        try {
            return ProcessHandle.of(Long.parseLong(parts[0])).isEmpty();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static void deleteQuietly(String ns) {
        try {
            Commands.run(List.of("ip", "netns", "del", ns));
        } catch (IOException e) {
            // Already gone, or held busy: the name is freed when its last process exits.
        }
    }
}
