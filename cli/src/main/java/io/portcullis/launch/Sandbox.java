package io.portcullis.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How the entry gets new user, network, pid and IPC namespaces with loopback up and nothing else
 * (SPEC R40). Both keep the file system as it is but for {@link Scratch} (a {@code /tmp} and {@code
 * /dev/shm} of its own, which still show the spawn's directory, so the entry reaches the spawn's
 * socket by its path) and the {@link Resolver}'s files, and both map the caller's uid to itself, so
 * the relay sees that uid on the socket (SO_PEERCRED). In its own pid namespace, with a {@code
 * /proc} of its own, the command sees no process outside the sandbox and can signal none (nor
 * attach to one). Nothing in the sandbox holds a capability over the mounts it was given, so none
 * can be taken off to show the host's beneath.
 *
 * <p>The sandbox's pid 1 is a shell that runs the entry (which becomes the command) and exits with
 * its status: when the command ends, the kernel ends whatever it left running in the sandbox. The
 * shell is silent (a shell reports a child killed by a signal on its standard error), and it is not
 * the command, since pid 1 ignores every signal it has no handler for. The readiness line
 * (descriptor 3) is opened before the sandbox starts, on a file outside it, which keeps it out of
 * the command's standard output and tells a sandbox that never started from a command that failed.
 */
public enum Sandbox {
    /**
     * bubblewrap: it brings loopback up itself, and takes the sandbox down when this process dies.
     * The entry may bind a forward below 1024 inside the namespace, as it may under {@link #UNSHARE}:
     * that is the one capability kept, also when root runs it (bubblewrap would keep root's all).
     */
    BWRAP("bwrap") {
        @Override
        List<String> prefix(Optional<Resolver> resolver, Scratch scratch) {
            List<String> prefix = new ArrayList<>(List.of(
                    "bwrap",
                    "--unshare-net",
                    "--unshare-user",
                    "--unshare-pid",
                    "--unshare-ipc",
                    "--as-pid-1",
                    "--die-with-parent",
                    "--cap-drop",
                    "ALL",
                    "--cap-add",
                    "CAP_NET_BIND_SERVICE",
                    "--dev-bind",
                    "/",
                    "/",
                    "--proc",
                    "/proc"));
            resolver.ifPresent(r -> {
                r.files()
                        .forEach(bind -> prefix.addAll(List.of(
                                "--ro-bind", bind.file().toString(), bind.over().toString())));
                r.hidden().forEach(directory -> prefix.addAll(List.of("--tmpfs", directory.toString())));
            });
            // A bind's source is the host's path, whatever is mounted inside before it.
            scratch.fresh()
                    .forEach(directory -> prefix.addAll(List.of("--perms", "1777", "--tmpfs", directory.toString())));
            scratch.kept()
                    .forEach(directory -> prefix.addAll(List.of("--bind", directory.toString(), directory.toString())));
            prefix.addAll(List.of("--", "/bin/sh", "-c", INIT, "sh"));
            return prefix;
        }
    },
    /**
     * util-linux unshare: the caller becomes root of the new user namespace, brings loopback up and
     * mounts what the sandbox sees, then gives those namespaces up ({@link #LOCKED}). It forks, so
     * that the sandbox's shell is pid 1 of the new pid namespace, and takes it down with it.
     */
    UNSHARE("unshare") {
        @Override
        List<String> prefix(Optional<Resolver> resolver, Scratch scratch) {
            // --mount-proc: a mount namespace of its own (private propagation), so every mount is
            // seen inside only, and a /proc of the new pid namespace.
            List<String> prefix = new ArrayList<>(List.of(
                    "unshare",
                    "--fork",
                    "--kill-child",
                    "--user",
                    "--map-root-user",
                    "--net",
                    "--pid",
                    "--mount-proc",
                    "--ipc"));
            StringBuilder script =
                    new StringBuilder("ip link set lo up && echo 0 >" + UNPRIVILEGED_PORT_START + " || exit 125; ");
            if (resolver.isPresent()) {
                for (Resolver.Bind bind : resolver.get().files()) {
                    script.append("mount --bind -o ro '")
                            .append(bind.file())
                            .append("' '")
                            .append(bind.over())
                            .append("' || exit 125; ");
                }
                for (Path directory : resolver.get().hidden()) {
                    script.append("mount -t tmpfs tmpfs '").append(directory).append("' || exit 125; ");
                }
            }
            // Each kept directory is an argument of the script ($1, $2, ...), held open across the
            // fresh mount over its parent and bound back from that descriptor: by its path it would
            // be the fresh directory's.
            int kept = scratch.kept().size();
            if (kept > MAX_KEPT) {
                throw new IllegalArgumentException("the unshare sandbox shows at most " + MAX_KEPT
                        + " folders of /tmp and /dev/shm, and this command needs " + kept + ": " + scratch.kept()
                        + " (expected: bubblewrap (--sandbox bwrap), or --share-tmp)");
            }
            for (int i = 1; i <= kept; i++) {
                script.append("exec ")
                        .append(keptFd(i))
                        .append("<\"$")
                        .append(i)
                        .append("\" || exit 125; ");
            }
            for (Path directory : scratch.fresh()) {
                script.append("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs '")
                        .append(directory)
                        .append("' || exit 125; ");
            }
            for (int i = 1; i <= kept; i++) {
                script.append("mkdir -p \"$")
                        .append(i)
                        .append("\" && mount --no-canonicalize --bind /proc/self/fd/")
                        .append(keptFd(i))
                        .append(" \"$")
                        .append(i)
                        .append("\" || exit 125; exec ")
                        .append(keptFd(i))
                        .append("<&-; ");
            }
            if (kept > 0) {
                script.append("shift ").append(kept).append("; ");
            }
            // The working directory is looked up again in what is now mounted (it was taken before,
            // and would still be the host's); where it is gone, home, as bubblewrap does.
            script.append("cd \"$(pwd)\" 2>/dev/null || cd \"${HOME:-/}\" 2>/dev/null || cd /; ");
            prefix.addAll(List.of("--", "/bin/sh", "-c", script + LOCKED + "'" + INIT + "' sh \"$@\"", "sh"));
            scratch.kept().forEach(directory -> prefix.add(directory.toString()));
            return prefix;
        }
    };

    /**
     * Where the unshare form lets any process of the sandbox's network namespace bind a port below
     * 1024 (bubblewrap gives CAP_NET_BIND_SERVICE instead): the entry no longer holds a capability
     * over that namespace once {@link #LOCKED}.
     */
    static final String UNPRIVILEGED_PORT_START = "/proc/sys/net/ipv4/ip_unprivileged_port_start";

    /**
     * The unshare form's pid 1, once everything is mounted, becomes a shell in a user and mount
     * namespace nested in the sandbox's (root there too, the same uid outside): every mount made
     * before is locked there (the kernel's rule for a mount namespace owned by a less privileged user
     * namespace), so nothing inside can unmount {@code /tmp}, {@code /dev/shm}, {@code /proc} or the
     * resolver's files to reach the host's beneath, nor remount them, and nothing inside holds a
     * capability over the namespaces the sandbox was built in. Followed by the shell's script, quoted.
     */
    static final String LOCKED = "exec unshare --user --map-root-user --mount -- /bin/sh -c ";

    /**
     * The sandbox's pid 1: runs the entry with the shell's own standard error closed to it (the
     * entry's is the caller's) and exits with its status, 128+S when signal S ended it.
     */
    static final String INIT = "exec 9>&2 2>/dev/null; \"$@\" 2>&9 9>&-; exit $?";

    /** The descriptor that holds the i-th kept directory (from 1) while the unshare form mounts over it. */
    private static int keptFd(int i) {
        return 3 + i;
    }

    /** Descriptors 4 to 8: a POSIX shell's redirections name one digit. */
    static final int MAX_KEPT = 5;

    /** Opens the readiness file as descriptor 3, then becomes the sandbox. */
    private static final String OPEN_READY = "exec 3>>\"$1\" || exit 125; shift; exec \"$@\"";

    /**
     * What the sandbox has of its own beside its namespaces: an empty tmpfs (mode 1777) over each of
     * {@code fresh}, and each of {@code kept} (a directory under one of them) bound back at its own
     * path, seen inside only. {@code /tmp} is fresh unless the person asks for the host's, and
     * {@code /dev/shm} always is: POSIX shared memory and semaphores live there, and an IPC
     * namespace does not separate them.
     */
    public record Scratch(List<Path> fresh, List<Path> kept) {
        /** Nothing of its own: the host's {@code /tmp} and {@code /dev/shm}. */
        public static final Scratch NONE = new Scratch(List.of(), List.of());

        public Scratch {
            fresh = List.copyOf(fresh);
            kept = List.copyOf(kept);
            fresh.forEach(Resolver::unquoted);
            for (Path directory : kept) {
                if (fresh.stream().noneMatch(directory::startsWith)) {
                    throw new IllegalArgumentException(
                            "kept: " + directory + " (expected: a directory under one of " + fresh + ")");
                }
            }
        }
    }

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

        static void unquoted(Path path) {
            if (path.toString().contains("'")) {
                throw new IllegalArgumentException("path: " + path + " (expected: no quote)");
            }
        }
    }

    /**
     * The sandbox's {@code /tmp}: the host's ({@code run --share-tmp}), or one of its own (the
     * default) that shows, of the host's, only the folders the command needs where they lie in it:
     * its working directory and the folders of its {@code PATH} (the spawn's directory and the
     * entry's installation are added to them).
     */
    public record Tmp(boolean shared, List<Path> shown) {
        /** The host's {@code /tmp}. */
        public static final Tmp SHARED = new Tmp(true, List.of());

        public Tmp {
            shown = List.copyOf(shown);
        }

        /** A {@code /tmp} of the sandbox's own, showing {@code shown} where they lie in the host's. */
        public static Tmp own(List<Path> shown) {
            return new Tmp(false, shown);
        }
    }

    /** The descriptor the wrapped command gets for the entry's readiness line. */
    public static final int READY_FD = 3;

    private final String program;

    Sandbox(String program) {
        this.program = program;
    }

    abstract List<String> prefix(Optional<Resolver> resolver, Scratch scratch);

    /**
     * The command line that runs {@code argv} in the sandbox, its readiness line going to {@code
     * ready} (a file outside it), with {@code resolver}'s files mounted inside, and {@code scratch}.
     */
    public List<String> wrap(List<String> argv, Path ready, Optional<Resolver> resolver, Scratch scratch) {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", OPEN_READY, "sh", ready.toString()));
        command.addAll(prefix(resolver, scratch));
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

        /** The choice named {@code word} in any case ({@code auto}, {@code BWRAP}, ...); empty for no choice. */
        public static Optional<Choice> named(String word) {
            for (Choice choice : values()) {
                if (choice.toString().equals(word.toLowerCase(Locale.ROOT))) {
                    return Optional.of(choice);
                }
            }
            return Optional.empty();
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
