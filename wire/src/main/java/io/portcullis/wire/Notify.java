package io.portcullis.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A client of the service manager's notification socket (sd_notify(3), systemd's {@value
 * #ENVIRONMENT}): each message is one datagram of {@code KEY=value} lines sent from a fresh unix
 * datagram socket, as libsystemd sends it, with the descriptors of {@code FDSTORE=1} attached
 * (SCM_RIGHTS). The manager reads who sent it from the kernel, so the sender needs no credentials
 * of its own in the message.
 *
 * <p>Names of stored descriptors follow the manager's rules for {@code LISTEN_FDNAMES}: at most
 * {@value #MAX_NAME} printable ASCII characters, no {@code :} (its separator there).
 */
public final class Notify {
    /** The variable that names the manager's socket: an absolute path, or {@code @} and an abstract name. */
    public static final String ENVIRONMENT = "NOTIFY_SOCKET";

    /** The longest name of a stored descriptor (systemd's FDNAME_MAX). */
    public static final int MAX_NAME = 255;

    /** How long a message may wait for room in the manager's queue. */
    private static final int SEND_TIMEOUT_MILLIS = 5_000;

    private final String address;

    /** @param address where the manager listens: an absolute path, or {@code @} and an abstract name */
    public Notify(String address) {
        Objects.requireNonNull(address, "address");
        if (address.length() < 2 || (address.charAt(0) != '/' && address.charAt(0) != '@')) {
            throw new IllegalArgumentException(
                    ENVIRONMENT + ": " + address + " (expected: an absolute path, or @ and an abstract name)");
        }
        if (address.getBytes(StandardCharsets.UTF_8).length > 107) {
            throw new IllegalArgumentException(
                    ENVIRONMENT + ": " + address + " (expected: at most 107 bytes, a unix socket's address)");
        }
        this.address = address;
    }

    /** The manager's socket that {@code environment} names, when it names one (empty or absent: none). */
    public static Optional<Notify> from(Map<String, String> environment) {
        String address = environment.get(ENVIRONMENT);
        return address == null || address.isEmpty() ? Optional.empty() : Optional.of(new Notify(address));
    }

    /** Where the manager listens. */
    public String address() {
        return address;
    }

    /** {@code READY=1}: the service serves. */
    public void ready() throws IOException {
        send("READY=1\n", new int[0]);
    }

    /** {@code STOPPING=1}: the service is stopping. */
    public void stopping() throws IOException {
        send("STOPPING=1\n", new int[0]);
    }

    /** {@code STATUS=text}: one line the manager shows beside the service's state. */
    public void status(String text) throws IOException {
        if (text.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("status: a line end (expected: one line)");
        }
        send("STATUS=" + text + "\n", new int[0]);
    }

    /**
     * {@code FDSTORE=1} with {@code FDNAME=name}: the manager keeps a copy of {@code fd} in the
     * service's descriptor store, across a crash or a restart, and passes it back at the next
     * start ({@link ListenFds}).
     */
    public void store(String name, int fd) throws IOException {
        checkName(name);
        send("FDSTORE=1\nFDNAME=" + name + "\n", new int[] {fd});
    }

    /** {@code FDSTOREREMOVE=1} with {@code FDNAME=name}: the manager closes every stored descriptor of that name. */
    public void remove(String name) throws IOException {
        checkName(name);
        send("FDSTOREREMOVE=1\nFDNAME=" + name + "\n", new int[0]);
    }

    /** One message: {@code state} (lines of {@code KEY=value}) with {@code fds} attached. */
    public void send(String state, int[] fds) throws IOException {
        Posix.sendDatagram(address, state.getBytes(StandardCharsets.UTF_8), fds, SEND_TIMEOUT_MILLIS);
    }

    /** Checks {@code name} against the manager's rules for a stored descriptor's name. */
    public static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME) {
            throw new IllegalArgumentException("name: " + name.length() + " characters (expected: 1-" + MAX_NAME + ")");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < ' ' || c >= 127 || c == ':') {
                throw new IllegalArgumentException(
                        "name: " + name.replaceAll("[^ -~]", "?") + " (expected: printable ASCII without ':')");
            }
        }
    }

    @Override
    public String toString() {
        return address;
    }
}
