package io.portcullis.owner.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * {@code net.ipv4.ip_unprivileged_port_start} of this process's network namespace: below it,
 * binding a port of either family needs {@code CAP_NET_BIND_SERVICE} there, so a port below it is
 * held only by a process the administrator let hold one.
 */
public final class UnprivilegedPorts {
    private UnprivilegedPorts() {}

    /** The lowest port any process of this network namespace may bind (1024 unless changed). */
    public static int start(ProcRoot root) throws IOException {
        // Not Files.readString: for a file of size 0 it reads one byte first, and a sysctl answers
        // the read that follows, at an offset, with nothing: "1024" came back as "1".
        List<String> lines = Files.readAllLines(root.resolve("sys", "net", "ipv4", "ip_unprivileged_port_start"));
        String text = lines.isEmpty() ? "" : lines.getFirst().strip();
        try {
            int start = Integer.parseInt(text);
            if (start < 0 || start > 65536) {
                throw new NumberFormatException(text);
            }
            return start;
        } catch (NumberFormatException e) {
            throw new IOException("ip_unprivileged_port_start: " + text + " (expected: an integer 0-65536)", e);
        }
    }
}
