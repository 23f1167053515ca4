package io.portcullis.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The descriptors a service manager passed to this process at its start (sd_listen_fds(3)): {@code
 * LISTEN_FDS} of them from descriptor {@value #START} up, named in order by {@code LISTEN_FDNAMES}
 * (colon-separated), and meant only for the process whose pid {@code LISTEN_PID} names: a process
 * that inherited the variables from its parent has none. systemd passes the service's descriptor
 * store this way ({@link Notify#store}).
 */
public final class ListenFds {
    /** The first passed descriptor. */
    public static final int START = 3;

    /** The variables that pass them; a child must not inherit them ({@link #adopt} removes them). */
    public static final List<String> VARIABLES = List.of("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES");

    /** The most descriptors a start may pass (systemd's own bound on a store is 65536). */
    static final int MOST = 65_536;

    private ListenFds() {}

    /** One passed descriptor and its name ({@code unknown} when the manager gave none). */
    public record Passed(int fd, String name) {
        public Passed {
            Objects.requireNonNull(name, "name");
            if (fd < START) {
                throw new IllegalArgumentException("fd: " + fd + " (expected: >= " + START + ")");
            }
        }
    }

    /**
     * What {@code environment} passes to the process {@code pid}: nothing when it names no
     * descriptors or names them for another process. Pure: it touches no descriptor.
     *
     * @throws IllegalArgumentException when the variables are not the manager's: a count or pid that
     *     is not a number, or names that do not match the count
     */
    public static List<Passed> parse(Map<String, String> environment, long pid) {
        String owner = environment.get("LISTEN_PID");
        String count = environment.get("LISTEN_FDS");
        if (owner == null || count == null) {
            return List.of();
        }
        if (number("LISTEN_PID", owner, Long.MAX_VALUE) != pid) {
            return List.of();
        }
        int n = (int) number("LISTEN_FDS", count, MOST);
        String names = environment.get("LISTEN_FDNAMES");
        // As libsystemd splits it: "" is no name at all, and "a::b" has an empty one between.
        List<String> named = names == null || names.isEmpty() ? List.of() : List.of(names.split(":", -1));
        if (names != null && named.size() != n) {
            throw new IllegalArgumentException(
                    "LISTEN_FDNAMES: " + named.size() + " names (expected: one per" + " descriptor, " + n + ")");
        }
        List<Passed> passed = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            passed.add(new Passed(START + i, names == null ? "unknown" : named.get(i)));
        }
        return List.copyOf(passed);
    }

    /**
     * The descriptors passed to this process ({@link #parse}), each marked close-on-exec, and the
     * variables removed from the environment a child would inherit ({@link #VARIABLES}), as
     * sd_listen_fds(3) does: a passed descriptor is this process's alone.
     *
     * @throws Posix.Failure when a descriptor the variables name is not open
     */
    public static List<Passed> adopt(Map<String, String> environment) throws Posix.Failure {
        List<Passed> passed = parse(environment, ProcessHandle.current().pid());
        for (Passed one : passed) {
            Posix.closeOnExec(one.fd());
        }
        VARIABLES.forEach(Posix::unsetenv);
        return passed;
    }

    private static long number(String name, String text, long most) {
        if (text.isEmpty() || text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(name + ": " + text + " (expected: a number)");
        }
        long value = Long.parseLong(text);
        if (value > most) {
            throw new IllegalArgumentException(name + ": " + text + " (expected: at most " + most + ")");
        }
        return value;
    }
}
