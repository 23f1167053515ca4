package io.portcullis.wire;

import io.portcullis.wire.Handoff.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The relay's side of the hand-over (SPEC R4): reads the one message from a connected spawn
 * socket and checks every descriptor that came with it, trusting nothing the message says. The
 * message must carry the spawn's key before anything else counts: a connection that does not is
 * {@link Unkeyed}, and the spawn socket is the real entry's still. Then each descriptor must be a
 * listening TCP socket (a bound UDP socket for {@code dns}), in the network namespace of the peer
 * that sent it, bound to exactly the address and port its header entry names, and that entry must
 * be one the policy asked for; every required socket must be there, and none twice. Any failure
 * refuses the whole hand-over and closes every descriptor received.
 */
public final class Receiver {
    private Receiver() {}

    /** A socket the policy calls for; an optional one (::1 where the namespace has IPv6) may be missing. */
    public record Wanted(Kind kind, InetSocketAddress address, boolean required) {
        public Wanted {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(address, "address");
        }

        Handoff.Socket socket() {
            return new Handoff.Socket(kind, address);
        }
    }

    /** A checked socket and its descriptor, now the caller's (non-blocking, close-on-exec). */
    public record Held(Handoff.Socket socket, int fd) {}

    /** What the hand-over came to. */
    public sealed interface Received permits Accepted, Refused, Unkeyed {}

    /** @param namespace the network namespace's inode that every socket shares with the peer */
    public record Accepted(List<Held> sockets, long namespace) implements Received {
        public Accepted {
            sockets = List.copyOf(sockets);
        }
    }

    /**
     * Refused for {@code reason}, a message that carried the spawn's key; every descriptor received
     * is closed already.
     */
    public record Refused(String reason) implements Received {}

    /**
     * Refused for {@code reason} before the spawn's key was read whole, or because it was not the
     * spawn's: whoever sent it did not show it holds the key, so the hand-over is still the real
     * entry's to make. Every descriptor received is closed already.
     */
    public record Unkeyed(String reason) implements Received {}

    /** Why a message with another key is refused; it says nothing of either key. */
    public static final String WRONG_KEY = "the message does not carry this spawn's hand-over key (expected: the"
            + " handoffKey the relay gave the wall, in " + Handoff.Key.ENVIRONMENT + ")";

    /**
     * The network namespace of a process, or of a socket, as the kernel names it (device and
     * inode); {@code pid} is the process it was read through, -1 for a socket.
     */
    public record Namespace(long device, long inode, long pid) {
        static Namespace of(Path path, long pid) throws IOException {
            return new Namespace(
                    ((Number) Files.getAttribute(path, "unix:dev")).longValue(),
                    ((Number) Files.getAttribute(path, "unix:ino")).longValue(),
                    pid);
        }

        /** The network namespace of process {@code pid}. */
        public static Namespace ofProcess(long pid) throws IOException {
            return of(Path.of("/proc", String.valueOf(pid), "ns", "net"), pid);
        }

        /** Whether both name the same namespace, whichever process they were read through. */
        boolean same(Namespace other) {
            return device == other.device && inode == other.inode;
        }

        /** The network namespace a socket was made in (SIOCGSKNS). */
        public static Namespace ofSocket(int fd) throws IOException {
            int ns = Posix.namespaceOf(fd);
            try {
                return of(Path.of("/proc/self/fd/" + ns), -1);
            } finally {
                Posix.closeQuietly(ns);
            }
        }
    }

    /**
     * Reads the message from {@code connection} (a connected, non-blocking unix socket) within
     * {@code timeoutMillis}, judges its key against {@code key} as soon as the key is there, then
     * checks it against {@code wanted}. The caller answers the peer.
     */
    public static Received receive(
            int connection, long peerPid, Handoff.Key key, List<Wanted> wanted, int timeoutMillis) {
        List<Integer> fds = new ArrayList<>();
        boolean keyed = false;
        try {
            // Read first, while the entry waits for its answer; it is judged only once the key is.
            Namespace peer;
            IOException unreadable = null;
            try {
                peer = Namespace.ofProcess(peerPid);
            } catch (IOException e) {
                peer = null;
                unreadable = e;
            }
            ByteArrayOutputStream message = new ByteArrayOutputStream();
            Optional<Received> problem = read(connection, key, timeoutMillis, fds, message, false);
            if (problem.isPresent()) {
                return problem.get();
            }
            keyed = true;
            if (peer == null) {
                return new Refused(
                        "cannot read the network namespace of the entry (pid " + peerPid + "): " + unreadable);
            }
            return check(message.toByteArray(), fds, peer, forHost(wanted, peer));
        } catch (RuntimeException | IOException e) {
            String why = "the hand-over failed: " + e.getMessage();
            return keyed ? new Refused(why) : new Unkeyed(why);
        } finally {
            // check() empties the list when it hands the descriptors on; all others are closed here.
            fds.forEach(Posix::closeQuietly);
        }
    }

    /**
     * An entry in the relay's own network namespace (a bench, a wall without one) has no forwards:
     * its loopback is the host's, so a forward would dial the relay's own socket. Nor does it need
     * the namespace's DNS or named sockets (the host's resolver and addresses serve it, and port 53
     * of the host is not the entry's to take). Those sockets may be missing; any that come are still
     * checked like the rest.
     */
    static List<Wanted> forHost(List<Wanted> wanted, Namespace peer) throws IOException {
        return peer.same(Namespace.ofProcess(ProcessHandle.current().pid())) ? relaxed(wanted) : wanted;
    }

    /**
     * Reads one whole header; descriptors may come only with its first bytes. Empty once it is
     * whole and carries {@code key}; a problem before the key was judged is {@link Unkeyed}, and one
     * after it {@link Refused}.
     */
    private static Optional<Received> read(
            int connection,
            Handoff.Key key,
            int timeoutMillis,
            List<Integer> fds,
            ByteArrayOutputStream bytes,
            boolean exact)
            throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        boolean keyed = false;
        Optional<Integer> length = Optional.empty();
        while (length.isEmpty() || bytes.size() < length.get()) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return refusal(keyed, "no whole hand-over within " + timeoutMillis + " ms");
            }
            if (!Posix.awaitReadable(connection, (int) Math.min(left, Integer.MAX_VALUE))) {
                continue;
            }
            int room = !exact ? 8192 : length.isEmpty() ? Handoff.HEADER - bytes.size() : length.get() - bytes.size();
            Optional<Posix.Received> got = Posix.receive(connection, room);
            if (got.isEmpty()) {
                continue;
            }
            Posix.Received received = got.get();
            for (int fd : received.fds()) {
                fds.add(fd);
            }
            boolean late = received.fds().length > 0 && bytes.size() > 0;
            if (received.data().length == 0) {
                return refusal(
                        keyed,
                        "the entry closed the connection after " + bytes.size()
                                + " bytes (expected: a whole hand-over)");
            }
            bytes.writeBytes(received.data());
            if (!keyed) {
                Optional<Received> unkeyed = judgeKey(bytes.toByteArray(), key);
                if (unkeyed.isPresent()) {
                    return unkeyed;
                }
                keyed = bytes.size() >= Handoff.KEYED;
            }
            if (received.controlTruncated()) {
                return refusal(
                        keyed,
                        "more descriptors than one message carries (expected: at most " + Handoff.MAX_SOCKETS + ")");
            }
            if (late) {
                return refusal(
                        keyed, "descriptors came after the start of the message (expected: with its first bytes)");
            }
            if (length.isEmpty() && bytes.size() >= Handoff.HEADER) {
                length = Handoff.length(bytes.toByteArray());
                if (length.isEmpty()) {
                    return Optional.of(
                            new Refused("the message is not a hand-over (expected: " + Handoff.EXPECTED + ")"));
                }
            }
        }
        if (bytes.size() > length.get()) {
            return Optional.of(new Refused("bytes after the hand-over (expected: one message)"));
        }
        return Optional.empty();
    }

    /** Whether the bytes so far show another magic or another key; empty while they may still be the spawn's. */
    private static Optional<Received> judgeKey(byte[] start, Handoff.Key key) {
        if (start.length >= 4 && !Handoff.magic(Arrays.copyOf(start, 4))) {
            return Optional.of(new Unkeyed("the message is not a hand-over (expected: " + Handoff.EXPECTED + ")"));
        }
        if (start.length >= Handoff.KEYED && !Handoff.keyed(start, key)) {
            return Optional.of(new Unkeyed(WRONG_KEY));
        }
        return Optional.empty();
    }

    private static Optional<Received> refusal(boolean keyed, String why) {
        return Optional.of(keyed ? new Refused(why) : new Unkeyed(why));
    }

    private static Received check(byte[] bytes, List<Integer> fds, Namespace peer, List<Wanted> wanted)
            throws IOException {
        Handoff handoff;
        try {
            handoff = Handoff.decode(bytes);
        } catch (Handoff.Malformed e) {
            return new Refused(String.valueOf(e.getMessage()));
        }
        if (fds.size() != handoff.sockets().size()) {
            return new Refused(
                    fds.size() + " descriptors for " + handoff.sockets().size() + " sockets (expected: one each)");
        }
        List<Held> claimed = new ArrayList<>();
        for (int i = 0; i < fds.size(); i++) {
            claimed.add(new Held(handoff.sockets().get(i), fds.get(i)));
        }
        Received outcome = check(
                claimed,
                (fd, udp) -> sameNamespace(fd, peer, udp),
                "made in another network namespace than the entry's (expected: the entry's own)",
                wanted,
                peer.inode());
        if (outcome instanceof Accepted) {
            fds.clear();
        }
        return outcome;
    }

    /** Whether a socket was made in the spawn's network namespace. */
    @FunctionalInterface
    private interface Home {
        boolean holds(int fd, boolean udp) throws IOException;
    }

    /**
     * Checks every claimed socket against what the kernel says of its descriptor and against
     * {@code wanted}; accepted, the descriptors are made non-blocking and are the caller's, else
     * none is closed here.
     *
     * @param elsewhere why a socket that {@code home} does not hold is refused
     */
    private static Received check(List<Held> claimed, Home home, String elsewhere, List<Wanted> wanted, long inode)
            throws IOException {
        Set<Handoff.Socket> seen = new HashSet<>();
        for (int i = 0; i < claimed.size(); i++) {
            Handoff.Socket socket = claimed.get(i).socket();
            String name = "socket " + i + " (" + socket + ")";
            if (wanted.stream().noneMatch(want -> want.socket().equals(socket))) {
                return new Refused(name + " is not one this spawn's policy calls for (expected: "
                        + wanted.stream().map(Wanted::socket).toList() + ")");
            }
            if (!seen.add(socket)) {
                return new Refused(name + " is there twice (expected: once)");
            }
            Optional<String> problem = facts(claimed.get(i).fd(), socket, home, elsewhere);
            if (problem.isPresent()) {
                return new Refused(name + ": " + problem.get());
            }
        }
        for (Wanted want : wanted) {
            if (want.required() && !seen.contains(want.socket())) {
                return new Refused("the " + want.socket() + " socket is missing (expected: every socket the policy"
                        + " calls for)");
            }
        }
        for (Held socket : claimed) {
            Posix.nonBlocking(socket.fd());
        }
        return new Accepted(claimed, inode);
    }

    /**
     * The network namespace that a carried spawn's sockets were made in (SPEC R44), as the relay
     * that carries it names it: its inode (for the log) and its cookie ({@link
     * Posix#namespaceCookie}), which no other namespace has while the machine runs.
     */
    public record Origin(long inode, long cookie) {}

    /**
     * A serving spawn as one relay carries it to another (SPEC R44): the namespace its sockets
     * were made in and each listening socket with a descriptor of it, in the order the hand-over
     * named them. With the spawn's policy, it is all another relay needs to serve the spawn.
     */
    public record Carried(Origin origin, List<Held> sockets) {
        public Carried {
            Objects.requireNonNull(origin, "origin");
            sockets = List.copyOf(sockets);
        }
    }

    /**
     * Checks the listening sockets of a spawn that one relay carries to another, or that a relay
     * takes back after a restart (SPEC R44), as a hand-over's are checked: each must be what its
     * claim says (type, listening, bound to exactly that loopback address and port), made in the
     * network namespace its origin names, and one the policy calls for; every required socket
     * must be there, none twice. There is no message and no key: the caller knows who gave the
     * descriptors. Where that is the relay's own namespace, the sockets a forward, the
     * DNS socket and the named ones may be missing, as in a hand-over (decision D29). Takes the descriptors:
     * accepted, they are the caller's (non-blocking); refused, every one is closed.
     */
    public static Received restore(Carried carried, List<Wanted> wanted) {
        List<Held> claimed = carried.sockets();
        Origin origin = carried.origin();
        boolean accepted = false;
        try {
            if (claimed.isEmpty() || claimed.size() > Handoff.MAX_SOCKETS) {
                return new Refused(claimed.size() + " sockets (expected: 1-" + Handoff.MAX_SOCKETS + ")");
            }
            List<Wanted> relaxed = origin.cookie() == Posix.ownNamespaceCookie() ? relaxed(wanted) : wanted;
            Received outcome = check(
                    claimed,
                    (fd, udp) -> Posix.namespaceCookie(fd) == origin.cookie(),
                    "made in another network namespace than the spawn's (expected: net:[" + origin.inode() + "])",
                    relaxed,
                    origin.inode());
            accepted = outcome instanceof Accepted;
            return outcome;
        } catch (RuntimeException | IOException e) {
            return new Refused("the sockets cannot be checked: " + e.getMessage());
        } finally {
            if (!accepted) {
                claimed.forEach(held -> Posix.closeQuietly(held.fd()));
            }
        }
    }

    /**
     * Reads one hand-over message that carries {@code key} from {@code connection}, and not a byte
     * past it, with its descriptors: the sockets of a spawn that another relay carries here (SPEC
     * R44), which the message names. Nothing is checked but the message's form and key, and one
     * descriptor per socket: {@link #restore} checks the rest.
     *
     * @throws IOException when no such message came within {@code timeoutMillis}; every descriptor
     *     received is closed
     */
    public static List<Held> receiveCarried(int connection, Handoff.Key key, int timeoutMillis) throws IOException {
        List<Integer> fds = new ArrayList<>();
        try {
            ByteArrayOutputStream message = new ByteArrayOutputStream();
            Optional<Received> problem = read(connection, key, timeoutMillis, fds, message, true);
            if (problem.isPresent()) {
                throw new IOException(
                        switch (problem.get()) {
                            case Refused refused -> refused.reason();
                            case Unkeyed unkeyed -> unkeyed.reason();
                            case Accepted accepted -> "accepted";
                        });
            }
            Handoff handoff;
            try {
                handoff = Handoff.decode(message.toByteArray());
            } catch (Handoff.Malformed e) {
                throw new IOException(e.getMessage(), e);
            }
            if (fds.size() != handoff.sockets().size()) {
                throw new IOException(
                        fds.size() + " descriptors for " + handoff.sockets().size() + " sockets (expected: one each)");
            }
            List<Held> held = new ArrayList<>();
            for (int i = 0; i < fds.size(); i++) {
                held.add(new Held(handoff.sockets().get(i), fds.get(i)));
            }
            fds.clear();
            return held;
        } finally {
            fds.forEach(Posix::closeQuietly);
        }
    }

    /** What the relay's own namespace may leave out (see {@link #forHost}). */
    private static List<Wanted> relaxed(List<Wanted> wanted) {
        return wanted.stream()
                .map(want -> want.kind() == Kind.FORWARD || want.kind() == Kind.DNS || want.kind() == Kind.NAMED
                        ? new Wanted(want.kind(), want.address(), false)
                        : want)
                .toList();
    }

    /** What the kernel says of one descriptor, against what its claim says. */
    private static Optional<String> facts(int fd, Handoff.Socket socket, Home home, String elsewhere)
            throws IOException {
        int type;
        try {
            type = Posix.intOption(fd, Posix.SOL_SOCKET, Posix.SO_TYPE);
        } catch (Posix.Failure e) {
            return Optional.of("not a socket (" + e.getMessage() + ")");
        }
        boolean udp = socket.kind() == Kind.DNS;
        int protocol = Posix.intOption(fd, Posix.SOL_SOCKET, Posix.SO_PROTOCOL);
        if (udp
                ? type != Posix.SOCK_DGRAM || protocol != Posix.IPPROTO_UDP
                : type != Posix.SOCK_STREAM || protocol != Posix.IPPROTO_TCP) {
            return Optional.of("a socket of type " + type + " and protocol " + protocol + " (expected: "
                    + (udp ? "UDP" : "TCP") + ")");
        }
        if (!udp && Posix.intOption(fd, Posix.SOL_SOCKET, Posix.SO_ACCEPTCONN) != 1) {
            return Optional.of("not listening (expected: a listening socket)");
        }
        Optional<InetSocketAddress> local = Posix.localAddress(fd);
        if (local.isEmpty() || !local.get().equals(socket.address())) {
            return Optional.of("bound to " + local.map(Handoff::text).orElse("no IP address")
                    + " (expected: what its entry says, " + Handoff.text(socket.address()) + ")");
        }
        InetAddress address = local.get().getAddress();
        if (!address.isLoopbackAddress()) {
            return Optional.of("bound to " + Handoff.text(address) + " (expected: a loopback address)");
        }
        boolean same;
        try {
            same = home.holds(fd, udp);
        } catch (IOException e) {
            return Optional.of("cannot tell its network namespace (" + e.getMessage() + ")");
        }
        return same ? Optional.empty() : Optional.of(elsewhere);
    }

    /**
     * Whether socket {@code fd} was made in {@code peer}'s network namespace: SIOCGSKNS where the
     * relay may use it (CAP_NET_ADMIN over the socket's namespace: root, or the owner of the
     * sandbox's user namespace), else whether the socket is in the peer's own socket table.
     */
    static boolean sameNamespace(int fd, Namespace peer, boolean udp) throws IOException {
        try {
            return Namespace.ofSocket(fd).same(peer);
        } catch (Posix.Failure e) {
            if (e.errno() != Posix.EPERM) {
                throw e;
            }
        }
        return inTablesOf(fd, peer.pid(), udp);
    }

    /**
     * Whether the socket {@code fd} is listed in {@code /proc/PID/net/tcp} or {@code tcp6} ({@code udp},
     * {@code udp6}): those list the sockets of that process's network namespace, and of no other.
     */
    static boolean inTablesOf(int fd, long pid, boolean udp) throws IOException {
        String link = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        if (!link.startsWith("socket:[") || !link.endsWith("]")) {
            return false;
        }
        String inode = link.substring("socket:[".length(), link.length() - 1);
        for (String table : udp ? List.of("udp", "udp6") : List.of("tcp", "tcp6")) {
            Path file = Path.of("/proc", String.valueOf(pid), "net", table);
            if (Files.exists(file) && listed(Files.readAllLines(file), inode)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a /proc/net/tcp-style table (a header, then one socket a line) has a socket of {@code inode}. */
    static boolean listed(List<String> table, String inode) {
        return table.stream()
                .skip(1)
                .map(line -> line.trim().split("\\s+"))
                .anyMatch(fields -> fields.length > 9 && fields[9].equals(inode));
    }
}
