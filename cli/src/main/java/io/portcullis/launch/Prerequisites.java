package io.portcullis.launch;

import java.util.ArrayList;
import java.util.List;

/** What {@code portcullis demo} needs from the machine, each missing one named with how to get it. */
public final class Prerequisites {
    /** Whether a command runs and exits 0: the seam for probing the kernel. */
    @FunctionalInterface
    public interface Probe {
        boolean succeeds(List<String> argv);
    }

    private Prerequisites() {}

    /** Every unmet need, one sentence each; empty when the demo can run. */
    public static List<String> missing(int uid, Executables installed, Probe probe) {
        List<String> missing = new ArrayList<>();
        if (uid != 0) {
            missing.add("root: the demo makes network namespaces for its test hosts (run it with sudo, or as root)");
        }
        for (String[] need : new String[][] {
            {"ip", "iproute2"}, {"curl", "curl"}, {"unshare", "util-linux"}, {"setpriv", "util-linux"}
        }) {
            if (!installed.installed(need[0])) {
                missing.add(need[0] + ": not found on PATH (install the " + need[1] + " package)");
            }
        }
        if (missing.isEmpty() && !probe.succeeds(List.of("unshare", "--user", "--map-root-user", "--net", "true"))) {
            missing.add("user namespaces: `unshare --user --map-root-user --net true` failed (enable them, e.g."
                    + " sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0)");
        }
        return missing;
    }
}
