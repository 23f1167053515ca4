package io.portcullis.owner;

import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.kernel.ProcessInfo;
import io.portcullis.owner.kernel.TcpListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps what the kernel and Docker readers found to the public evidence records. The evidence is
 * what a person reads (a decision line, {@code portcullis owner}); the judge reads the full
 * values. A program can give its own service an argv of two megabytes, or its container labels of
 * any length, and every decision line carries the evidence, so the shown values are cut: each
 * argv element and label value to {@link #CHARS} characters, a process's argv to {@link #ARGV_CHARS}
 * in all; what is cut says how much was left out.
 */
final class Evidence {
    /** The most characters of one shown argv element or label value. */
    static final int CHARS = 1024;
    /** The most characters of one process's shown argv, all elements together. */
    static final int ARGV_CHARS = 4096;

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
    private static Boolean v6Only(TcpListener l) {
        return switch (l.v6Only()) {
            case ON -> true;
            case OFF -> false;
            case UNKNOWN -> null;
        };
    }

    static OwnerEvidence.Process process(ProcessInfo p, long inode) {
        return new OwnerEvidence.Process(p.pid(), p.uid(), shown(p.argv()), p.cwd(), p.exe(), inode);
    }

    static OwnerEvidence.Container container(ContainerInfo c) {
        Map<String, String> labels = new HashMap<>();
        c.labels().forEach((name, value) -> labels.put(name, cut(value, CHARS)));
        return new OwnerEvidence.Container(c.id(), c.name(), labels);
    }

    /** {@code argv} as shown: each element cut to {@link #CHARS}, all of them to {@link #ARGV_CHARS}. */
    static List<String> shown(List<String> argv) {
        List<String> shown = new ArrayList<>(argv.size());
        int left = ARGV_CHARS;
        for (int i = 0; i < argv.size(); i++) {
            if (left <= 0) {
                shown.add("… (" + (argv.size() - i) + " more arguments)");
                break;
            }
            String element = cut(argv.get(i), Math.min(CHARS, left));
            shown.add(element);
            left -= Math.min(argv.get(i).length(), Math.min(CHARS, left));
        }
        return shown;
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
