package io.portcullis.relay.handoff;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the spawn directories that a relay which is gone left behind (killed with SIGKILL, or
 * its host lost power): SPEC R3's "every exit path" for the one path a process cannot act on.
 * A spawn directory's name carries the relay that made it: {@code spawn-<id>-<pid>.<start>-<random>},
 * where {@code start} is the process's start time in clock ticks since boot (field 22 of
 * {@code /proc/<pid>/stat}), so a reused pid is not taken for the relay; the numbers are written
 * in base 36 and the random part is 8 characters, to keep the socket's path short.
 *
 * <p>A directory is removed only when all of these hold: its name has that form; no live process
 * has that pid and start time; it is a directory, not a link, owned by this relay's uid; nothing
 * listens on its socket's path in this network namespace ({@code /proc/net/unix}, read, never
 * connected to); and it holds nothing but the socket. It is opened without following links and
 * emptied through its own descriptor. Anything else is left as it is.
 */
public final class StaleSpawns {
    private static final Logger log = LoggerFactory.getLogger(StaleSpawns.class);
    /** {@code spawn-<id>-<pid>.<start>-<random>}, the numbers in base 36 to keep the socket's path short. */
    private static final Pattern NAME = Pattern.compile("spawn-.*-([0-9a-z]{1,8})\\.([0-9a-z]{1,13})-[0-9a-z]{8}");

    private static final SecureRandom RANDOM = new SecureRandom();

    private StaleSpawns() {}

    /** This process as {@link #maker} reads it back from a name: {@code <pid>.<start>}, in decimal. */
    static String self() {
        return Marker.PID + "." + Marker.START;
    }

    private static final class Marker {
        static final long PID = ProcessHandle.current().pid();
        static final long START = startTime(PID).orElse(0L);
    }

    /** A fresh name for a spawn directory of this relay: {@code spawn-<id>-<pid>.<start>-<8 random>}. */
    static String freshName(String safeId) {
        return name(safeId, Marker.PID, Marker.START, RANDOM.nextLong());
    }

    /** The name of a spawn directory made by process {@code pid} started at {@code start}. Pure. */
    static String name(String safeId, long pid, long start, long random) {
        String tail = Long.toString(random & 0xff_ffff_ffffL, 36);
        return "spawn-" + safeId + "-" + Long.toString(pid, 36) + "." + Long.toString(start, 36) + "-"
                + "0".repeat(8 - tail.length()) + tail;
    }

    /**
     * Removes the stale spawn directories in {@code parent}; returns how many. Errors are logged
     * and leave the directory in place: a sweep never stops a relay from starting.
     */
    public static int sweep(Path parent) {
        int removed = 0;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent)) {
            if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
                return 0;
            }
            Set<String> listening = null;
            for (Path entry : secure) {
                Path name = entry.getFileName();
                Optional<String> maker = maker(name.toString());
                if (maker.isEmpty() || maker.get().equals(self()) || alive(maker.get())) {
                    continue;
                }
                if (listening == null) {
                    listening = unixListeners();
                }
                try {
                    if (removeIfStale(secure, parent.resolve(name), listening)) {
                        removed++;
                    }
                } catch (IOException | RuntimeException e) {
                    // One entry that went away or cannot be read stops nothing but its own removal.
                    log.debug("stale spawn directory {}: {}", name, e.toString());
                }
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot look for stale spawn directories in {}: {}", parent, e.toString());
        }
        if (removed > 0) {
            log.info("removed {} spawn directories left in {} by relays that are gone", removed, parent);
        }
        return removed;
    }

    /**
     * The {@code <pid>.<start>} (decimal) of the relay that made the directory {@code name}; empty
     * when it is not one. Pure.
     */
    static Optional<String> maker(String name) {
        Matcher matcher = NAME.matcher(name);
        return matcher.matches()
                ? Optional.of(Long.parseLong(matcher.group(1), 36) + "." + Long.parseLong(matcher.group(2), 36))
                : Optional.empty();
    }

    private static boolean alive(String maker) {
        int dot = maker.indexOf('.');
        long pid = Long.parseLong(maker.substring(0, dot));
        Optional<Long> start = startTime(pid);
        return start.isPresent() && Long.toString(start.get()).equals(maker.substring(dot + 1));
    }

    private static boolean removeIfStale(
            SecureDirectoryStream<Path> parentStream, Path directory, Set<String> listening) throws IOException {
        Path name = directory.getFileName();
        BasicFileAttributes attributes = Files.readAttributes(directory, BasicFileAttributes.class, NOFOLLOW_LINKS);
        int uid = (Integer) Files.getAttribute(directory, "unix:uid", NOFOLLOW_LINKS);
        if (!attributes.isDirectory() || uid != ownUid()) {
            return false;
        }
        if (listening.contains(directory.resolve(SpawnSocket.NAME).toString())) {
            return false;
        }
        UserPrincipal owner = Files.getOwner(directory, NOFOLLOW_LINKS);
        try (SecureDirectoryStream<Path> own = parentStream.newDirectoryStream(name, NOFOLLOW_LINKS)) {
            // The directory opened must be the relay's own, whatever happened to the path since.
            if (!own.getFileAttributeView(PosixFileAttributeView.class)
                            .getOwner()
                            .equals(owner)
                    || (Integer) Files.getAttribute(directory, "unix:uid", NOFOLLOW_LINKS) != ownUid()) {
                return false;
            }
            for (Path inside : own) {
                if (!inside.getFileName().toString().equals(SpawnSocket.NAME)) {
                    log.warn("{}: left in place, it holds {} besides the socket", directory, inside.getFileName());
                    return false;
                }
            }
            try {
                own.deleteFile(Path.of(SpawnSocket.NAME));
            } catch (NoSuchFileException e) {
                // the socket was removed already
            }
        }
        parentStream.deleteDirectory(name);
        return true;
    }

    private static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** The start time of process {@code pid} in clock ticks since boot; empty when there is no such process. */
    static Optional<Long> startTime(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        } catch (IOException e) {
            return Optional.empty();
        }
        // comm (field 2) may hold spaces and parentheses: the fields that follow start after the last ')'.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return fields.length > 19 ? Optional.of(Long.parseLong(fields[19])) : Optional.empty();
    }

    /** The paths that unix sockets of this network namespace are bound to. */
    private static Set<String> unixListeners() throws IOException {
        Set<String> paths = new HashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/net/unix"))) {
            String[] fields = line.trim().split("\\s+", 8);
            if (fields.length == 8 && fields[7].startsWith("/")) {
                paths.add(fields[7]);
            }
        }
        return paths;
    }
}
