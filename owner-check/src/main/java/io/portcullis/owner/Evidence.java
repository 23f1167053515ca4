package io.portcullis.owner;

import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.kernel.ProcessInfo;
import io.portcullis.owner.kernel.TcpListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Maps what the kernel and Docker readers found to the public evidence records. The evidence is
 * what a person reads (a decision line, {@code portcullis owner}); the judge reads the full
 * values. A program can give its own service an argv of two megabytes (or of a hundred thousand
 * empty arguments), fork it many times, or give its container many long labels, and every decision
 * line carries the evidence, so what is shown is bounded: each argv element, label value, cwd and
 * exe to {@link #CHARS} characters (a path to {@link #ARGV_CHARS}), a process's argv to {@link
 * #ARGV_CHARS} in all (each element counting at least {@link #ELEMENT_COST}, as its quotes and
 * comma in a line do), {@link #PROCESSES} processes and {@link #LABELS} labels; what is cut says
 * how much was left out.
 */
final class Evidence {
    /** The most characters of one shown argv element, label name or value. */
    static final int CHARS = 1024;
    /** The most characters of one process's shown argv, all elements together, and of a path. */
    static final int ARGV_CHARS = 4096;
    /** What one argv element costs beyond its characters. */
    static final int ELEMENT_COST = 3;
    /** The most processes shown for one answer. */
    static final int PROCESSES = 16;
    /** The most labels shown for one container (by name, in order); a last one says how many more. */
    static final int LABELS = 64;

    private Evidence() {}

    static OwnerEvidence.Listener listener(TcpListener l) {
        String address = l.mapped()
                ? "::ffff:" + l.address().getHostAddress()
                : l.address().getHostAddress();
        String family = l.family() == TcpListener.Family.INET ? "inet" : "inet6";
        return new OwnerEvidence.Listener(
                family, address, l.port(), l.uid(), l.inode(), v6Only(l), Devices.name(l.ifindex()));
    }

    /** Null when the reader could not tell (the {@code /proc} fallback). */
    private static @Nullable Boolean v6Only(TcpListener l) {
        return switch (l.v6Only()) {
            case ON -> true;
            case OFF -> false;
            case UNKNOWN -> null;
        };
    }

    static OwnerEvidence.Process process(ProcessInfo p, long inode) {
        return new OwnerEvidence.Process(p.pid(), p.uid(), shown(p.argv()), path(p.cwd()), path(p.exe()), inode);
    }

    static OwnerEvidence.Container container(ContainerInfo c) {
        return new OwnerEvidence.Container(c.id(), c.name(), shown(c.labels()));
    }

    /** {@code argv} as shown: each element cut to {@link #CHARS}, all of them to {@link #ARGV_CHARS}. */
    static List<String> shown(List<String> argv) {
        List<String> shown = new ArrayList<>(Math.min(argv.size(), ARGV_CHARS / ELEMENT_COST + 1));
        int left = ARGV_CHARS;
        for (int i = 0; i < argv.size(); i++) {
            int most = Math.min(CHARS, left - ELEMENT_COST);
            if (most < 1) {
                shown.add("… (" + (argv.size() - i) + " more arguments)");
                break;
            }
            String element = argv.get(i);
            shown.add(cut(element, most));
            left -= Math.min(element.length(), most) + ELEMENT_COST;
        }
        return shown;
    }

    /** {@code labels} as shown: the first {@link #LABELS} by name, names and values cut to {@link #CHARS}. */
    static Map<String, String> shown(Map<String, String> labels) {
        Map<String, String> shown = new HashMap<>();
        List<String> names = labels.keySet().stream().sorted().toList();
        for (String name : names.subList(0, Math.min(names.size(), LABELS))) {
            shown.put(cut(name, CHARS), cut(labels.getOrDefault(name, ""), CHARS));
        }
        if (names.size() > LABELS) {
            shown.put("…", "(" + (names.size() - LABELS) + " more labels)");
        }
        return shown;
    }

    private static @Nullable String path(@Nullable String path) {
        return path == null ? null : cut(path, ARGV_CHARS);
    }

    /** {@code text}, or its first {@code most} characters (never half a surrogate pair) and how many more there were. */
    static String cut(String text, int most) {
        if (text.length() <= most) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(most - 1)) ? most - 1 : most;
        return text.substring(0, end) + "… (" + (text.length() - end) + " more characters)";
    }
}
