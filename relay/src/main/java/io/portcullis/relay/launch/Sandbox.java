package io.portcullis.relay.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
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
            resolver.ifPresent(r -> prefix.addAll(
                    List.of("--ro-bind", r.file().toString(), r.over().toString())));
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
                // A mount namespace of its own (private propagation): the bind is seen inside only.
                prefix.add("--mount");
                mount = "mount --bind -o ro '" + resolver.get().file() + "' '"
                        + resolver.get().over() + "' || exit 125; ";
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
     * The namespace's resolver configuration (SPEC R24): {@code file} is mounted over {@code over},
     * the host's {@code /etc/resolv.conf} (where its link points, when it is one), inside the
     * sandbox only.
     */
    public record Resolver(Path file, Path over) {
        public Resolver {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(over, "over");
            if (file.toString().contains("'") || over.toString().contains("'")) {
                throw new IllegalArgumentException("file: " + file + ", over: " + over + " (expected: no quote)");
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

        /** The sandbox for this choice; throws naming the missing program. */
        public Sandbox resolve(Executables installed) {
            Sandbox sandbox = switch (this) {
                case AUTO -> installed.installed(Sandbox.BWRAP.program) ? Sandbox.BWRAP : Sandbox.UNSHARE;
                case BWRAP -> Sandbox.BWRAP;
                case UNSHARE -> Sandbox.UNSHARE;
            };
            if (!installed.installed(sandbox.program)) {
                throw new IllegalStateException("--sandbox " + name().toLowerCase(Locale.ROOT) + ": " + sandbox.program
                        + " is not installed (expected: bwrap (bubblewrap) or unshare (util-linux) on PATH)");
            }
            return sandbox;
        }
    }
}
