package io.portcullis.owner.kernel;

import java.io.IOException;
import java.util.List;

/** Finds every process holding a socket inode. */
@FunctionalInterface
public interface ProcessSource {

    /**
     * The processes holding {@code inode}, those running as {@code ownerUid} first.
     *
     * @throws IOException when a process cannot be read (permission refused, or a holder gone
     *     before its argv, cwd and exe were read): the caller must refuse, not guess
     */
    List<ProcessInfo> holding(long inode, int ownerUid) throws IOException;

    static ProcessSource system(ProcRoot root) {
        return new ProcFdScan(root);
    }
}
