package io.portcullis.owner.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps a socket inode to processes by reading every {@code <root>/<pid>/fd}. A process that exits
 * before it is seen holding the inode held nothing worth judging and is skipped. One that exits
 * after it was seen makes the scan start again, since only living holders can answer: a forking
 * server's short-lived children hold its listening socket too. After {@value #SCANS} scans that
 * each lost a holder, or on any permission refusal, the whole scan fails.
 */
final class ProcFdScan implements ProcessSource {
    static final int SCANS = 3;

    private final ProcRoot root;

    ProcFdScan(ProcRoot root) {
        this.root = root;
    }

    @Override
    public Map<Long, List<ProcessInfo>> holding(Set<Long> inodes, int ownerUid) throws IOException {
        for (int scan = 1; ; scan++) {
            try {
                return scan(inodes, ownerUid);
            } catch (HolderGone e) {
                if (scan == SCANS) {
                    throw e;
                }
            }
        }
    }

    /** A process seen holding an asked inode exited before it could be read. */
    private static final class HolderGone extends IOException {
        private static final long serialVersionUID = 1L;

        HolderGone(long pid, NoSuchFileException cause) {
            super("process " + pid + " went away mid-scan", cause);
        }
    }

    private Map<Long, List<ProcessInfo>> scan(Set<Long> inodes, int ownerUid) throws IOException {
        Map<String, Long> sockets = new HashMap<>();
        inodes.forEach(inode -> sockets.put("socket:[" + inode + "]", inode));
        Map<Long, Set<Long>> held = new LinkedHashMap<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(root.path(), ProcFdScan::isPid)) {
            for (Path dir : all) {
                Set<Long> found = held(dir, sockets, ownerUid);
                if (!found.isEmpty()) {
                    held.put(Long.parseLong(dir.getFileName().toString()), found);
                }
            }
        }
        Map<Long, List<ProcessInfo>> holders = new HashMap<>();
        inodes.forEach(inode -> holders.put(inode, new ArrayList<>()));
        for (Map.Entry<Long, Set<Long>> e : held.entrySet()) {
            ProcessInfo process = read(e.getKey());
            e.getValue().forEach(inode -> holders.get(inode).add(process));
        }
        Comparator<ProcessInfo> ownersFirst =
                Comparator.comparing((ProcessInfo p) -> p.uid() != ownerUid).thenComparingLong(ProcessInfo::pid);
        holders.values().forEach(list -> list.sort(ownersFirst));
        return holders;
    }

    private static boolean isPid(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** The asked inodes this process holds; empty for a process gone before its fds were read. */
    private static Set<Long> held(Path dir, Map<String, Long> sockets, int ownerUid) throws IOException {
        Path fds = dir.resolve("fd");
        Set<Long> found = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                Long inode = sockets.get(link(fd));
                if (inode != null) {
                    found.add(inode);
                }
            }
            return found;
        } catch (NoSuchFileException gone) {
            return Set.of();
        } catch (DirectoryIteratorException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return Set.of();
            }
            throw e.getCause();
        } catch (AccessDeniedException e) {
            unreadable(dir, ownerUid, e);
            return Set.of();
        }
    }

    /**
     * A process whose fds may not be read (more privileged than the reader) fails the scan when it
     * runs as the socket's uid, the one that could have made the socket; another uid's is skipped,
     * or one unreadable system process would refuse every check of the host.
     */
    private static void unreadable(Path dir, int ownerUid, AccessDeniedException e) throws IOException {
        long pid = Long.parseLong(dir.getFileName().toString());
        try {
            if (effectiveUid(Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8), pid) != ownerUid) {
                return;
            }
        } catch (NoSuchFileException gone) {
            return;
        }
        throw new IOException("cannot read the fds of process " + pid + " of uid " + ownerUid + ": permission refused", e);
    }

    private static String link(Path fd) throws IOException {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (NoSuchFileException closed) {
            return "";
        }
    }

    private ProcessInfo read(long pid) throws IOException {
        Path dir = root.resolve(Long.toString(pid));
        try {
            byte[] cmdline = Files.readAllBytes(dir.resolve("cmdline"));
            String cwd = Files.readSymbolicLink(dir.resolve("cwd")).toString();
            String exe = Files.readSymbolicLink(dir.resolve("exe")).toString();
            int uid = effectiveUid(Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8), pid);
            return new ProcessInfo(pid, uid, argv(cmdline), cwd, exe);
        } catch (NoSuchFileException e) {
            throw new HolderGone(pid, e);
        }
    }

    static List<String> argv(byte[] cmdline) {
        String all = new String(cmdline, StandardCharsets.UTF_8);
        if (all.endsWith("\0")) {
            all = all.substring(0, all.length() - 1);
        }
        return all.isEmpty() ? List.of() : Arrays.asList(all.split("\0", -1));
    }

    static int effectiveUid(List<String> status, long pid) throws IOException {
        for (String line : status) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).strip().split("\\s+");
                if (ids.length >= 2) {
                    return Integer.parseInt(ids[1]);
                }
            }
        }
        throw new IOException("process " + pid + ": no Uid line in status");
    }
}
