package io.portcullis.owner;

import io.portcullis.owner.checks.Checks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The owner check's part of the host configuration (SPEC R2, R30-R36). Built by the relay's
 * configuration loader, which reports errors with JSON paths; this record only guards invariants.
 *
 * @param gatewayUid the uid the gateway and its satellites run as; -1 when the host has no gateway
 * @param gatewayPort the gateway's real loopback port; 0 when none
 * @param roots the gateway's checkout and home folders (R31 {@code owner-checkout})
 * @param signatures patterns that mark a gateway or satellite process, in any checkout
 * @param addons the installed add-on ids
 * @param bundleDirs folders whose {@code <dir>/<id>} compose working directories count as add-on {@code id}
 * @param exceptions add-on id to the other compose projects it may reach
 * @param dockerEndpoint e.g. {@code unix:///var/run/docker.sock}
 * @param cacheWindow how long one answer is reused (R35)
 */
public record OwnerConfig(
        int gatewayUid,
        int gatewayPort,
        List<Path> roots,
        List<Signature> signatures,
        Set<String> addons,
        List<Path> bundleDirs,
        Map<String, Set<String>> exceptions,
        String dockerEndpoint,
        Duration cacheWindow) {

    public static final String DEFAULT_DOCKER_ENDPOINT = "unix:///var/run/docker.sock";
    public static final Duration DEFAULT_CACHE_WINDOW = Duration.ofSeconds(1);

    /** No gateway, no add-ons, the default Docker endpoint and cache window. */
    public static final OwnerConfig DEFAULTS = new OwnerConfig(
            -1, 0, List.of(), List.of(), Set.of(), List.of(), Map.of(), DEFAULT_DOCKER_ENDPOINT, DEFAULT_CACHE_WINDOW);

    public OwnerConfig {
        roots = List.copyOf(roots);
        signatures = List.copyOf(signatures);
        addons = Set.copyOf(addons);
        bundleDirs = List.copyOf(bundleDirs);
        exceptions = Map.copyOf(exceptions);
        Objects.requireNonNull(dockerEndpoint, "dockerEndpoint");
        Objects.requireNonNull(cacheWindow, "cacheWindow");
        Checks.portOrZero("gatewayPort", gatewayPort);
        if (cacheWindow.isNegative()) {
            throw new IllegalArgumentException("cacheWindow: " + cacheWindow + " (expected: >= 0)");
        }
    }

    /** This configuration with the gateway's uid and port ({@code owner.gatewayUid}, {@code owner.gatewayPort}). */
    public OwnerConfig withGateway(int uid, int port) {
        return new OwnerConfig(
                uid, port, roots, signatures, addons, bundleDirs, exceptions, dockerEndpoint, cacheWindow);
    }

    /**
     * Marks a gateway or satellite process. A process matches when any argv element matches
     * {@code argv}, or its executable path matches {@code exe} (whole-string regular expressions;
     * either may be empty, not both).
     */
    public record Signature(String name, Optional<Pattern> argv, Optional<Pattern> exe) {
        public Signature {
            Objects.requireNonNull(name, "name");
            if (argv.isEmpty() && exe.isEmpty()) {
                throw new IllegalArgumentException("signature " + name + ": (expected: argv or exe pattern)");
            }
        }
    }
}
