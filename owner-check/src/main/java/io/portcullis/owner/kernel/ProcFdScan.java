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
import java.util.List;

/**
 * Maps a socket inode to processes by reading every {@code <root>/<pid>/fd}. A process that exits
 * before it is seen holding the inode held nothing worth judging and is skipped; one that exits
 * after, or any permission refusal, fails the whole scan.
 */
final class ProcFdScan implements ProcessSource {
    private final ProcRoot root;

    ProcFdScan(ProcRoot root) {
        this.root = root;
    }

    @Override
    public List<ProcessInfo> holding(long inode, int ownerUid) throws IOException {
        String socket = "socket:[" + inode + "]";
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(root.path(), ProcFdScan::isPid)) {
            for (Path dir : all) {
                if (holds(dir, socket, ownerUid)) {
                    pids.add(Long.parseLong(dir.getFileName().toString()));
                }
            }
        }
        List<ProcessInfo> holders = new ArrayList<>();
        for (long pid : pids) {
            holders.add(read(pid));
        }
        holders.sort(Comparator.comparing((ProcessInfo p) -> p.uid() != ownerUid).thenComparingLong(ProcessInfo::pid));
        return holders;
    }

    private static boolean isPid(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static boolean holds(Path dir, String socket, int ownerUid) throws IOException {
        Path fds = dir.resolve("fd");
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                if (socket.equals(link(fd))) {
                    return true;
                }
            }
            return false;
        } catch (NoSuchFileException gone) {
            return false;
        } catch (DirectoryIteratorException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return false;
            }
            throw e.getCause();
        } catch (AccessDeniedException e) {
            return unreadable(dir, ownerUid, e);
        }
    }

    /**
     * A process whose fds may not be read (more privileged than the reader) fails the scan when it
     * runs as the socket's uid, the one that could have made the socket; another uid's is skipped,
     * or one unreadable system process would refuse every check of the host.
     */
    private static boolean unreadable(Path dir, int ownerUid, AccessDeniedException e) throws IOException {
        long pid = Long.parseLong(dir.getFileName().toString());
        try {
            if (effectiveUid(Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8), pid) != ownerUid) {
                return false;
            }
        } catch (NoSuchFileException gone) {
            return false;
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
            throw new IOException("process " + pid + " went away mid-scan", e);
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
