package io.portcullis.owner.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Maps a socket inode to processes by reading every {@code <root>/<pid>/fd}. A process seen holding
 * an asked inode has its argv, cwd, exe and uid read at once, and is then checked again: it must
 * still hold the inode and be the same process (the same start time), so that the details belong to
 * a living holder. One that no longer holds it (it exited, or closed the socket) cannot answer and is
 * left out: a forking server's short-lived children hold its listening socket for a moment. A holder
 * whose details cannot be read while it still holds the socket, or that keeps changing under the
 * reader, fails the scan, as does a permission refusal on a process of the socket's uid.
 */
final class ProcFdScan implements ProcessSource {
    /** How many times a holder is read before a pid that keeps changing hands fails the scan. */
    static final int READS = 3;

    private final ProcRoot root;

    ProcFdScan(ProcRoot root) {
        this.root = root;
    }

    @Override
    public Map<Long, List<ProcessInfo>> holding(Set<Long> inodes, int ownerUid) throws IOException {
        Map<String, Long> sockets = new HashMap<>();
        inodes.forEach(inode -> sockets.put("socket:[" + inode + "]", inode));
        Map<Long, List<ProcessInfo>> holders = new HashMap<>();
        inodes.forEach(inode -> holders.put(inode, new ArrayList<>()));
        try (DirectoryStream<Path> all = Files.newDirectoryStream(root.path(), ProcFdScan::isPid)) {
            for (Path dir : all) {
                Fds fds = fds(dir, sockets, ownerUid);
                Path view = dir;
                if (fds.none()) {
                    Optional<Path> thread = livingThread(dir, sockets, ownerUid);
                    if (thread.isPresent()) {
                        view = thread.get();
                        fds = fds(view, sockets, ownerUid);
                    }
                }
                if (!fds.asked().isEmpty()) {
                    confirm(view, fds, sockets, ownerUid)
                            .ifPresent(holder -> holder.inodes()
                                    .forEach(inode -> holders.computeIfAbsent(inode, none -> new ArrayList<>())
                                            .add(holder.process())));
                }
            }
        }
        Comparator<ProcessInfo> ownersFirst =
                Comparator.comparing((ProcessInfo p) -> p.uid() != ownerUid).thenComparingLong(ProcessInfo::pid);
        holders.values().forEach(list -> list.sort(ownersFirst));
        return holders;
    }

    /** A living process and the asked inodes it holds. */
    private record Holder(ProcessInfo process, Set<Long> inodes) {}

    /**
     * Reads a process seen holding asked inodes, then its fds and its {@code stat} again: empty when
     * it holds none of them any more, or is exiting (the kernel drops its memory, cwd and exe before
     * its fds, and it never accepts again). The start time before and after tells a pid reused
     * mid-read from the process that was seen. The fds that held the inodes are read again first;
     * the whole table only when one of them changed.
     */
    private static Optional<Holder> confirm(Path dir, Fds seen, Map<String, Long> sockets, int ownerUid)
            throws IOException {
        long pid = pid(dir);
        for (int read = 1; read <= READS; read++) {
            Optional<Stat> before = Stat.read(dir);
            if (before.isEmpty()) {
                return Optional.empty();
            }
            Optional<ProcessInfo> process;
            Optional<IOException> unreadable;
            try {
                process = Optional.of(details(dir, pid));
                unreadable = Optional.empty();
            } catch (IOException e) {
                process = Optional.empty();
                unreadable = Optional.of(e);
            }
            Optional<Set<Long>> held = seen.stillHeld(sockets);
            if (held.isEmpty()) {
                seen = fds(dir, sockets, ownerUid);
            }
            Set<Long> still = held.orElseGet(seen::inodes);
            Optional<Stat> after = Stat.read(dir);
            if (still.isEmpty()
                    || after.isEmpty()
                    || (unreadable.isPresent() && after.get().exiting())) {
                return Optional.empty();
            }
            if (before.get().startTime() == after.get().startTime()) {
                if (process.isEmpty()) {
                    IOException cause = unreadable.orElseThrow();
                    throw new IOException(
                            "process " + pid + " holds the socket but its argv, cwd, exe or status cannot be read: "
                                    + cause.getMessage(),
                            cause);
                }
                return Optional.of(new Holder(process.get(), still));
            }
        }
        throw new IOException("process " + pid + " changed " + READS + " times while it was read");
    }

    /** The fields of {@code <pid>/stat} the scan needs. */
    private record Stat(long startTime, boolean exiting) {
        private static final long PF_EXITING = 0x4;

        /** Empty when the process is gone. */
        static Optional<Stat> read(Path dir) throws IOException {
            Path file = dir.resolve("stat");
            String line;
            try {
                line = Files.readString(file, StandardCharsets.US_ASCII);
            } catch (NoSuchFileException gone) {
                return Optional.empty();
            } catch (IOException e) {
                if (gone(dir)) {
                    return Optional.empty(); // ESRCH: reaped after the open
                }
                throw e;
            }
            // After the command name: state (field 3) ... flags (field 9) ... start time (field 22).
            String[] fields = line.substring(line.lastIndexOf(')') + 1).strip().split(" ");
            try {
                return Optional.of(new Stat(Long.parseLong(fields[19]), (Long.parseLong(fields[6]) & PF_EXITING) != 0));
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
                throw new IOException(file + ": not a stat line", e);
            }
        }
    }

    /** Argv, cwd, exe and effective uid. */
    private static ProcessInfo details(Path dir, long pid) throws IOException {
        byte[] cmdline = Files.readAllBytes(dir.resolve("cmdline"));
        String cwd = Files.readSymbolicLink(dir.resolve("cwd")).toString();
        String exe = Files.readSymbolicLink(dir.resolve("exe")).toString();
        int uid = effectiveUid(Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8), pid);
        return new ProcessInfo(pid, uid, argv(cmdline), cwd, exe);
    }

    private static boolean isPid(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** The pid a process or thread directory belongs to: {@code <pid>} or {@code <pid>/task/<tid>}. */
    private static long pid(Path dir) {
        Path parent = Objects.requireNonNull(dir.getParent(), "dir");
        Path process = String.valueOf(parent.getFileName()).equals("task")
                ? Objects.requireNonNull(parent.getParent(), "dir")
                : dir;
        return Long.parseLong(String.valueOf(process.getFileName()));
    }

    /** What a fd table holds: whether it has any fd at all, and the fds that hold asked inodes. */
    private record Fds(boolean none, Map<Path, Long> asked) {
        static final Fds GONE = new Fds(false, Map.of());

        Set<Long> inodes() {
            return new HashSet<>(asked.values());
        }

        /** The asked inodes, when every fd that held one still does; empty when one changed or failed. */
        Optional<Set<Long>> stillHeld(Map<String, Long> sockets) {
            try {
                for (Map.Entry<Path, Long> fd : asked.entrySet()) {
                    if (!fd.getValue().equals(sockets.get(link(fd.getKey())))) {
                        return Optional.empty();
                    }
                }
            } catch (IOException e) {
                return Optional.empty(); // the whole table is read again, and its errors judged there
            }
            return Optional.of(inodes());
        }
    }

    /** Reads {@code <dir>/fd}; no asked inodes for a process gone before its fds were read. */
    private static Fds fds(Path dir, Map<String, Long> sockets, int ownerUid) throws IOException {
        Path fds = dir.resolve("fd");
        Map<Path, Long> found = new HashMap<>();
        boolean none = true;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                none = false;
                Long inode = sockets.get(link(fd));
                if (inode != null) {
                    found.put(fd, inode);
                }
            }
            return new Fds(none, found);
        } catch (NoSuchFileException gone) {
            return Fds.GONE;
        } catch (DirectoryIteratorException e) {
            if (e.getCause() instanceof NoSuchFileException || gone(dir)) {
                return Fds.GONE;
            }
            throw e.getCause();
        } catch (AccessDeniedException e) {
            unreadable(dir, ownerUid, e);
            return Fds.GONE;
        } catch (IOException e) {
            if (gone(dir)) {
                return Fds.GONE;
            }
            throw e;
        }
    }

    /**
     * When a process's main thread has exited, {@code <pid>/fd} is empty although its other threads
     * still share the fd table and can accept on its sockets: such a process is read through a
     * living thread, {@code <pid>/task/<tid>}. The link count of {@code <pid>/task} is two plus the
     * number of threads, so the many processes with no fds at all (kernel threads) cost one stat.
     */
    private static Optional<Path> livingThread(Path dir, Map<String, Long> sockets, int ownerUid) throws IOException {
        Path tasks = dir.resolve("task");
        try {
            if (((Number) Files.getAttribute(tasks, "unix:nlink")).intValue() <= 3) {
                return Optional.empty();
            }
            try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
                for (Path thread : threads) {
                    if (!thread.getFileName().equals(dir.getFileName())
                            && !fds(thread, sockets, ownerUid).none()) {
                        return Optional.of(thread);
                    }
                }
            }
        } catch (NoSuchFileException gone) {
            return Optional.empty();
        } catch (DirectoryIteratorException e) {
            if (e.getCause() instanceof NoSuchFileException || gone(dir)) {
                return Optional.empty();
            }
            throw e.getCause();
        } catch (IOException e) {
            if (gone(dir)) {
                return Optional.empty();
            }
            throw e;
        }
        return Optional.empty();
    }

    /** True once the process has been reaped: its directory is no longer there. */
    private static boolean gone(Path dir) {
        return !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * A process whose fds may not be read (more privileged than the reader) fails the scan when it
     * runs as the socket's uid, the one that could have made the socket; another uid's is skipped,
     * or one unreadable system process would refuse every check of the host.
     */
    private static void unreadable(Path dir, int ownerUid, AccessDeniedException e) throws IOException {
        long pid = pid(dir);
        try {
            if (effectiveUid(Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8), pid) != ownerUid) {
                return;
            }
        } catch (NoSuchFileException gone) {
            return;
        }
        throw new IOException(
                "cannot read the fds of process " + pid + " of uid " + ownerUid + ": permission refused", e);
    }

    private static String link(Path fd) throws IOException {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (NoSuchFileException closed) {
            return "";
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
