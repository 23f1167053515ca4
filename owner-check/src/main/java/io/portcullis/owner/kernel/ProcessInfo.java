package io.portcullis.owner.kernel;

import java.util.List;
import java.util.Objects;

/** A process that holds a socket: its pid, effective uid, argv, cwd and executable. */
public record ProcessInfo(long pid, int uid, List<String> argv, String cwd, String exe) {
    public ProcessInfo {
        argv = List.copyOf(argv);
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(exe, "exe");
    }
}
