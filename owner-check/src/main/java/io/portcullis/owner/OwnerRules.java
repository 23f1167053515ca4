package io.portcullis.owner;

import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.kernel.ProcessInfo;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The owner rules, pure: no I/O, no clock. For a socket of the gateway's user (R31), in order: no
 * process, a gateway or satellite signature, a wall process, anything under a checkout root, then a
 * manifest default. For a root socket (R32): the container's compose identity against the add-on.
 * An empty answer is a pass.
 */
final class OwnerRules {
    private static final String BUBBLEWRAP = "bwrap";

    /** Docker's userland proxy: the process that holds a container's published port on the host. */
    static final String DOCKER_PROXY = "docker-proxy";

    private final OwnerConfig config;
    private final WallProcesses wall;
    private final List<Path> roots;
    private final List<Path> bundleDirs;

    OwnerRules(OwnerConfig config, WallProcesses wall) {
        this.config = config;
        this.wall = wall;
        this.roots =
                config.roots().stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.bundleDirs = config.bundleDirs().stream()
                .map(p -> p.toAbsolutePath().normalize())
                .toList();
    }

    Optional<Refusal> gatewayUser(Source source, List<ProcessInfo> holders) {
        if (holders.isEmpty()) {
            return refuse(OwnerCode.UNMAPPED, "no process holds the gateway user's socket");
        }
        for (ProcessInfo p : holders) {
            for (OwnerConfig.Signature s : config.signatures()) {
                if (matches(s, p)) {
                    return refuse(OwnerCode.GATEWAY, "process " + p.pid() + " matches signature " + s.name());
                }
            }
        }
        for (ProcessInfo p : holders) {
            if (wall.contains(p.pid())
                    || Path.of(p.exe()).getFileName().toString().equals(BUBBLEWRAP)) {
                return refuse(OwnerCode.WALL, "process " + p.pid() + " is part of the wall");
            }
        }
        for (ProcessInfo p : holders) {
            Optional<String> under = checkout(p);
            if (under.isPresent()) {
                return refuse(
                        OwnerCode.CHECKOUT, "process " + p.pid() + " runs from the gateway's root: " + under.get());
            }
        }
        if (source == Source.DEFAULT) {
            return refuse(OwnerCode.DEFAULT_USER, "a manifest default never reaches the gateway user's own service");
        }
        return Optional.empty();
    }

    /**
     * A root socket whose publisher Docker cannot be asked about (R32). Only a port a container
     * publishes could pass, and on the host such a port is held by Docker's own proxy: held by it,
     * Docker is the missing piece ({@code owner-docker-down}); held by any other root process, the
     * socket is simply root's and Docker was never needed ({@code owner-root}); when the holders
     * cannot be read (a relay that is not root), it is root's as far as can be known, and the
     * detail says that Docker could not be asked. Never a pass. Pure.
     *
     * @param holders the processes holding the socket; empty when they cannot be read
     * @param docker why Docker could not be asked
     */
    static Refusal rootWithoutDocker(Optional<List<ProcessInfo>> holders, String docker) {
        if (holders.isEmpty()) {
            return new Refusal(
                    OwnerCode.ROOT,
                    "a root socket, held by a process this relay cannot see; only a port a container publishes"
                            + " passes, and Docker could not be asked whether one does (" + docker + ")");
        }
        for (ProcessInfo p : holders.get()) {
            if (p.exe().substring(p.exe().lastIndexOf('/') + 1).equals(DOCKER_PROXY)) {
                return new Refusal(
                        OwnerCode.DOCKER_DOWN,
                        "a root socket held by Docker's proxy (process " + p.pid()
                                + ") for a container's port, and Docker cannot say which container: " + docker);
            }
        }
        ProcessInfo first = holders.get().getFirst();
        return new Refusal(
                OwnerCode.ROOT,
                "a root socket held by process " + first.pid() + " (" + first.exe()
                        + "), not a port a container publishes (Docker was not needed, and could not be asked: "
                        + docker + ")");
    }

    Optional<Refusal> container(OwnerQuery query, ContainerInfo c) {
        String project = c.labels().getOrDefault(ContainerInfo.PROJECT, "");
        if (project.isEmpty()) {
            return refuse(OwnerCode.UNLABELLED, "container " + c.name() + " has no compose project label");
        }
        Optional<String> addon = addonOf(project, c.labels().getOrDefault(ContainerInfo.WORKING_DIR, ""));
        if (addon.isPresent() && addon.get().equals(query.addonId())) {
            return Optional.empty();
        }
        Set<String> allowed = config.exceptions().getOrDefault(query.addonId(), Set.of());
        if (query.source() == Source.OWNER && allowed.contains(project)) {
            return Optional.empty();
        }
        if (addon.isEmpty()) {
            return refuse(OwnerCode.UNKNOWN_PROJECT, "compose project " + project + " is no installed add-on's");
        }
        return refuse(OwnerCode.OTHER_ADDON, "compose project " + project + " belongs to add-on " + addon.get());
    }

    /**
     * The installed add-on a compose project belongs to: a working directory {@code <bundle dir>/<id>}
     * decides, and counts only when {@code id} is installed; otherwise the project name itself.
     */
    private Optional<String> addonOf(String project, String workingDir) {
        Optional<String> bundled = bundleId(workingDir);
        String id = bundled.orElse(project);
        return config.addons().contains(id) ? Optional.of(id) : Optional.empty();
    }

    private Optional<String> bundleId(String workingDir) {
        return path(workingDir)
                .filter(dir -> dir.getParent() != null && bundleDirs.contains(dir.getParent()))
                .map(dir -> String.valueOf(dir.getFileName()));
    }

    private static boolean matches(OwnerConfig.Signature s, ProcessInfo p) {
        return s.exe().filter(exe -> exe.matcher(p.exe()).matches()).isPresent()
                || s.argv()
                        .filter(argv ->
                                p.argv().stream().anyMatch(a -> argv.matcher(a).matches()))
                        .isPresent();
    }

    /** An argv element (or the value of an {@code option=value} element), the cwd or the exe under a root. */
    private Optional<String> checkout(ProcessInfo p) {
        List<String> candidates = new ArrayList<>();
        for (String a : p.argv()) {
            candidates.add(a);
            int eq = a.indexOf('=');
            if (eq >= 0) {
                candidates.add(a.substring(eq + 1));
            }
        }
        candidates.add(p.cwd());
        candidates.add(p.exe());
        return candidates.stream().filter(this::underRoot).findFirst();
    }

    private boolean underRoot(String text) {
        return path(text)
                .filter(path -> roots.stream().anyMatch(path::startsWith))
                .isPresent();
    }

    /** {@code text} as an absolute path; empty when it is not one. */
    private static Optional<Path> path(String text) {
        if (!text.startsWith("/")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(text).normalize());
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static Optional<Refusal> refuse(OwnerCode code, String detail) {
        return Optional.of(new Refusal(code, detail));
    }
}
