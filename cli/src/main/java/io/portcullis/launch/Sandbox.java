package io.portcullis.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How the entry gets a new user and network namespace with loopback up and nothing else. Both
 * keep the file system as it is, so the entry reaches the spawn's socket by its path, and both
 * map the caller's uid to itself, so the relay sees that uid on the socket (SO_PEERCRED).
 *
 * <p>The wrapped command writes the entry's readiness line (descriptor 3) to a file, which keeps
 * it out of the command's standard output and tells a sandbox that never started from a command
 * that failed.
 */
public enum Sandbox {
    /**
     * bubblewrap: it brings loopback up itself, and takes the entry down when this process dies. The
     * entry may bind a forward below 1024 inside the namespace, as it may under {@link #UNSHARE}.
     */
    BWRAP("bwrap") {
        @Override
        List<String> prefix(Optional<Resolver> resolver) {
            List<String> prefix = new ArrayList<>(List.of(
                    "bwrap",
                    "--unshare-net",
                    "--unshare-user",
                    "--die-with-parent",
                    "--cap-add",
                    "CAP_NET_BIND_SERVICE",
                    "--dev-bind",
                    "/",
                    "/"));
            resolver.ifPresent(r -> {
                r.files()
                        .forEach(bind -> prefix.addAll(List.of(
                                "--ro-bind", bind.file().toString(), bind.over().toString())));
                r.hidden().forEach(directory -> prefix.addAll(List.of("--tmpfs", directory.toString())));
            });
            prefix.addAll(List.of("--", "/bin/sh", "-c", "ready=$1; shift; exec \"$@\" 3>>\"$ready\"", "sh"));
            return prefix;
        }
    },
    /**
     * util-linux unshare: the caller becomes root of the new user namespace, and brings loopback up.
     * It forks, so that the command (which the entry becomes) is unshare's child, as it is
     * bubblewrap's, and takes the command down with it.
     */
    UNSHARE("unshare") {
        @Override
        List<String> prefix(Optional<Resolver> resolver) {
            List<String> prefix =
                    new ArrayList<>(List.of("unshare", "--fork", "--kill-child", "--user", "--map-root-user", "--net"));
            String mount = "";
            if (resolver.isPresent()) {
                // A mount namespace of its own (private propagation): the mounts are seen inside only.
                prefix.add("--mount");
                StringBuilder mounts = new StringBuilder();
                for (Resolver.Bind bind : resolver.get().files()) {
                    mounts.append("mount --bind -o ro '")
                            .append(bind.file())
                            .append("' '")
                            .append(bind.over())
                            .append("' || exit 125; ");
                }
                for (Path directory : resolver.get().hidden()) {
                    mounts.append("mount -t tmpfs tmpfs '").append(directory).append("' || exit 125; ");
                }
                mount = mounts.toString();
            }
            prefix.addAll(List.of(
                    "--",
                    "/bin/sh",
                    "-c",
                    "ip link set lo up || exit 125; " + mount + "ready=$1; shift; exec \"$@\" 3>>\"$ready\"",
                    "sh"));
            return prefix;
        }
    };

    /**
     * How names resolve inside the sandbox (SPEC R24), seen inside only: each of {@code files} is
     * mounted read-only over a host file (the resolver configuration over {@code /etc/resolv.conf},
     * a {@code hosts: files dns} switch over {@code /etc/nsswitch.conf}, where their links point),
     * and an empty tmpfs hides each of {@code hidden}, the sockets of host daemons that resolve
     * names without reading either (systemd-resolved, nscd, avahi), which a namespace does not
     * separate.
     */
    public record Resolver(List<Bind> files, List<Path> hidden) {
        public Resolver {
            files = List.copyOf(files);
            hidden = List.copyOf(hidden);
            hidden.forEach(Resolver::unquoted);
        }

        /** {@code file} mounted read-only over {@code over}. */
        public record Bind(Path file, Path over) {
            public Bind {
                unquoted(file);
                unquoted(over);
            }
        }

        private static void unquoted(Path path) {
            if (path.toString().contains("'")) {
                throw new IllegalArgumentException("path: " + path + " (expected: no quote)");
            }
        }
    }

    /** The descriptor the wrapped command gets for the entry's readiness line. */
    public static final int READY_FD = 3;

    private final String program;

    Sandbox(String program) {
        this.program = program;
    }

    abstract List<String> prefix(Optional<Resolver> resolver);

    /** The command line that runs {@code argv} in a new namespace, its readiness line going to {@code ready}. */
    public List<String> wrap(List<String> argv, Path ready) {
        return wrap(argv, ready, Optional.empty());
    }

    /**
     * The command line that runs {@code argv} in a new namespace, its readiness line going to
     * {@code ready}, with {@code resolver}'s file as the namespace's {@code /etc/resolv.conf}.
     */
    public List<String> wrap(List<String> argv, Path ready, Optional<Resolver> resolver) {
        List<String> command = new ArrayList<>(prefix(resolver));
        command.add(ready.toString());
        command.addAll(argv);
        return command;
    }

    /** The program this sandbox needs. */
    public String program() {
        return program;
    }

    /** How the user picks a sandbox: {@code auto} is bubblewrap when installed, else unshare. */
    public enum Choice {
        AUTO,
        BWRAP,
        UNSHARE;

        /** The word the user types, as the docs and messages spell it: {@code auto}, {@code bwrap}, {@code unshare}. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The sandbox for this choice; throws naming the missing program. */
        public Sandbox resolve(Executables installed) {
            Sandbox sandbox = switch (this) {
                case AUTO -> installed.installed(Sandbox.BWRAP.program) ? Sandbox.BWRAP : Sandbox.UNSHARE;
                case BWRAP -> Sandbox.BWRAP;
                case UNSHARE -> Sandbox.UNSHARE;
            };
            if (!installed.installed(sandbox.program)) {
                throw new IllegalStateException("--sandbox " + this + ": " + sandbox.program
                        + " is not installed (expected: bwrap (bubblewrap) or unshare (util-linux) on PATH)");
            }
            return sandbox;
        }
    }
}
