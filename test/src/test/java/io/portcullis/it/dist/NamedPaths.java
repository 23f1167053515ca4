package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.it.world.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the distribution's manual pages and unit name: absolute paths, repository paths
 * ({@code docs/policy.md}, which mean nothing once installed) and manual pages
 * ({@code portcullis-host.json(5)}). The tests hold each to what the tarball or the .deb installs
 * (issue 25, #8).
 */
record NamedPaths(Set<String> paths, Set<String> repositoryPaths, Set<String> pages) {
    /** An absolute path under a root of the file system hierarchy, not part of a URL or a longer word. */
    private static final Pattern PATH = Pattern.compile(
            "(?<![\\w.:/~-])/(?:usr|etc|var|run|opt|lib|bin|sbin|proc|tmp|dev|srv|home)(?:/[\\w.@+-]*[\\w@+-])*");

    private static final Pattern REPOSITORY = Pattern.compile("(?<![\\w/.-])(?:docs|packaging|scripts)/[\\w./-]*\\w");

    private static final Pattern PAGE = Pattern.compile("(?<![\\w-])(portcullis[\\w.-]*)\\((\\d)\\)");

    /**
     * The paths a shipped file may name though no package installs them, and why: the host's own,
     * or made when the daemon runs. Anything else a page or the unit names is one of ours and must
     * be installed.
     */
    static final Map<String, String> NOT_OURS = Map.ofEntries(
            Map.entry("/usr/local", "the tarball's prefix, named as such"),
            Map.entry("/etc/portcullis/host.json", "the operator's configuration (the .deb ships it as a conffile)"),
            Map.entry("/etc/resolv.conf", "the host's resolver configuration"),
            Map.entry("/etc/hosts", "the host's names"),
            Map.entry("/run/portcullis", "the unit's RuntimeDirectory"),
            Map.entry("/run/portcullis/control.sock", "made by the daemon"),
            Map.entry("/run/portcullis/daemon.pid", "made by the daemon (--pid-file)"),
            Map.entry("/var/log/portcullis", "the unit's LogsDirectory"),
            Map.entry("/var/lib/portcullis", "the unit's StateDirectory"),
            Map.entry("/var/log/portcullis/decisions.jsonl", "an example of log.file"),
            Map.entry("/var/run/docker.sock", "Docker's"),
            Map.entry("/proc", "the kernel's"),
            Map.entry("/proc/PID/ns/net", "the kernel's, an example of --control-netns"),
            Map.entry("/run/netns/NAME", "ip-netns(8)'s, an example of --control-netns"),
            Map.entry("/tmp", "the host's"),
            Map.entry("/bin/kill", "procps, a dependency of the .deb"),
            Map.entry("/usr/sbin/nologin", "the host's (passwd)"));

    static NamedPaths in(String text) {
        return new NamedPaths(all(PATH, text, 0), all(REPOSITORY, text, 0), pages(text));
    }

    /** A manual page as groff renders it in plain ASCII, unwrapped and unhyphenated; any other file as it is. */
    static String text(Path file) throws IOException, InterruptedException {
        String name = file.getFileName().toString();
        if (!name.matches(".*\\.[1-8](\\.gz)?")) {
            return Files.readString(file);
        }
        String shell =
                (name.endsWith(".gz") ? "gzip -dc" : "cat") + " \"$1\" | groff -man -Tascii -ww -rLL=2000n -rHY=0";
        Run run = Run.of(List.of("sh", "-c", shell, "render", file.toString()), "", 30);
        assertEquals(0, run.exit(), run.toString());
        return run.out().replaceAll(".\b", "");
    }

    /** The manual pages and the unit under {@code root} (a prefix, or a .deb unpacked). */
    static List<Path> shippedFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(f ->
                            f.toString().contains("/man/man") || f.toString().endsWith(".service"))
                    .sorted()
                    .toList();
        }
    }

    private static Set<String> all(Pattern pattern, String text, int group) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(group));
        }
        return found;
    }

    private static Set<String> pages(String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = PAGE.matcher(text);
        while (matcher.find()) {
            found.add("man" + matcher.group(2) + "/" + matcher.group(1) + "." + matcher.group(2));
        }
        return found;
    }
}
