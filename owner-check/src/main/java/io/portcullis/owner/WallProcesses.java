package io.portcullis.owner;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pids of the wall's own processes (SPEC R31 {@code owner-wall}): the relay itself, and every
 * peer pid seen on a spawn socket. The relay adds to it; the owner check reads it. Thread-safe.
 */
public final class WallProcesses {
    private final Set<Long> pids = ConcurrentHashMap.newKeySet();

    /** An empty set. */
    public WallProcesses() {}

    /** A set that already holds this process's own pid. */
    public static WallProcesses withSelf() {
        WallProcesses wall = new WallProcesses();
        wall.add(ProcessHandle.current().pid());
        return wall;
    }

    public void add(long pid) {
        pids.add(pid);
    }

    public void remove(long pid) {
        pids.remove(pid);
    }

    public boolean contains(long pid) {
        return pids.contains(pid);
    }
}
