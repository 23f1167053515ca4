package io.portcullis.owner.kernel;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Finds every process holding a socket inode. */
@FunctionalInterface
public interface ProcessSource {

    /**
     * For each of {@code inodes}, the processes holding it (an empty list for none), those running
     * as {@code ownerUid} first. One pass over every process answers all the inodes.
     *
     * @throws IOException when a process cannot be read (permission refused, or a holder gone
     *     before its argv, cwd and exe were read): the caller must refuse, not guess
     */
    Map<Long, List<ProcessInfo>> holding(Set<Long> inodes, int ownerUid) throws IOException;

    static ProcessSource system(ProcRoot root) {
        return new ProcFdScan(root);
    }
}
