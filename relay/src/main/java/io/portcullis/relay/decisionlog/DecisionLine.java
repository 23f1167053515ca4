package io.portcullis.relay.decisionlog;

import io.portcullis.log.ControlEscapes;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The JSON text of a decision line and of an end line, written field by field: byte for byte what {@link LogJson}'s
 * Jackson writer gives for a {@link Decision} (the tests hold the two to each other, for every
 * character and every shape of line), at a small part of its cost. The relay writes one line per
 * connection, thousands a second; through Jackson's databind (a serializer per component, one
 * more per {@code Optional}) the log's thread took as much CPU as a tenth of the event loops', on
 * the two cores the spawns' traffic needs too.
 *
 * <p>Every string is escaped as {@link ControlEscapes} says: {@code "} and {@code \}, C0 and DEL,
 * C1, U+2028 and U+2029, so one line is always one record (SPEC R17).
 */
final class DecisionLine {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private DecisionLine() {}

    static String text(Decision line) {
        StringBuilder out = new StringBuilder(768);
        append(line, out);
        return out.toString();
    }

    private static void append(Decision line, StringBuilder out) {
        head(out, line.time(), line.spawn(), line.connection(), line.kind());
        out.append(",\"open\":").append(line.open());
        out.append(",\"target\":");
        string(out, line.target());
        out.append(",\"resolved\":[");
        List<InetAddress> resolved = line.resolved();
        for (int i = 0; i < resolved.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            string(out, Target.text(resolved.get(i)));
        }
        out.append("],\"dialed\":");
        string(out, line.dialed().map(Target::text));
        out.append(",\"verdict\":");
        string(out, line.verdict().toString());
        out.append(",\"code\":");
        code(out, line.code());
        out.append(",\"reason\":");
        string(out, line.reason());
        out.append(",\"owner\":");
        if (line.owner().isPresent()) {
            owner(out, line.owner().get());
        } else {
            out.append("null");
        }
        out.append(",\"bytesUp\":").append(line.bytesUp());
        out.append(",\"bytesDown\":").append(line.bytesDown());
        out.append(",\"durationMillis\":").append(line.durationMillis());
        Decision.Timings timings = line.timings();
        out.append(",\"timings\":{\"dnsMicros\":");
        number(out, timings.dnsMicros());
        out.append(",\"ownerMicros\":");
        number(out, timings.ownerMicros());
        out.append(",\"connectMicros\":");
        number(out, timings.connectMicros());
        out.append("},\"generation\":").append(line.generation());
        out.append(",\"revision\":").append(line.revision());
        out.append(",\"end\":");
        string(out, line.end().map(Decision.End::toString));
        if (line.shadow().isPresent()) {
            Decision.Shadow shadow = line.shadow().get();
            out.append(",\"shadow\":{\"verdict\":");
            string(out, shadow.verdict());
            out.append(",\"code\":");
            code(out, shadow.code());
            out.append('}');
        }
        if (line.upstream().isPresent()) {
            Decision.Upstream upstream = line.upstream().get();
            out.append(",\"upstream\":{\"proxy\":");
            string(out, Target.text(upstream.proxy()));
            out.append(",\"sent\":");
            string(out, upstream.sent());
            upstream.status().ifPresent(status -> out.append(",\"status\":").append(status.intValue()));
            out.append('}');
        }
        out.append('}');
    }

    /** The fields every line starts with, in order: time, spawn, connection, kind. */
    private static void head(StringBuilder out, Instant time, String spawn, long connection, String kind) {
        out.append("{\"time\":");
        string(out, time.toString());
        out.append(",\"spawn\":");
        string(out, spawn);
        out.append(",\"connection\":").append(connection);
        out.append(",\"kind\":");
        string(out, kind);
    }

    /** The end line of a connection whose decision line was written open, as Jackson writes it too. */
    static String text(Ended line) {
        StringBuilder out = new StringBuilder(256);
        head(out, line.time(), line.spawn(), line.connection(), line.kind());
        out.append(",\"target\":");
        string(out, line.target());
        out.append(",\"verdict\":");
        string(out, line.verdict().toString());
        out.append(",\"code\":");
        code(out, line.code());
        out.append(",\"reason\":");
        string(out, line.reason());
        out.append(",\"bytesUp\":").append(line.bytesUp());
        out.append(",\"bytesDown\":").append(line.bytesDown());
        out.append(",\"durationMillis\":").append(line.durationMillis());
        out.append(",\"end\":");
        string(out, line.end().map(Decision.End::toString));
        return out.append('}').toString();
    }

    private static void number(StringBuilder out, OptionalLong value) {
        if (value.isPresent()) {
            out.append(value.getAsLong());
        } else {
            out.append("null");
        }
    }

    private static void code(StringBuilder out, Optional<DenyCode> code) {
        string(out, code.map(DenyCode::code));
    }

    private static void owner(StringBuilder out, OwnerEvidence evidence) {
        out.append("{\"listeners\":[");
        List<OwnerEvidence.Listener> listeners = evidence.listeners();
        for (int i = 0; i < listeners.size(); i++) {
            OwnerEvidence.Listener listener = listeners.get(i);
            out.append(i > 0 ? ",{\"family\":" : "{\"family\":");
            string(out, listener.family());
            out.append(",\"address\":");
            string(out, listener.address());
            out.append(",\"port\":").append(listener.port());
            out.append(",\"uid\":").append(listener.uid());
            out.append(",\"inode\":").append(listener.inode());
            out.append(",\"v6Only\":").append(listener.v6Only());
            out.append(",\"device\":");
            string(out, listener.device());
            out.append('}');
        }
        out.append("],\"processes\":[");
        List<OwnerEvidence.Process> processes = evidence.processes();
        for (int i = 0; i < processes.size(); i++) {
            OwnerEvidence.Process process = processes.get(i);
            out.append(i > 0 ? ",{\"pid\":" : "{\"pid\":").append(process.pid());
            out.append(",\"uid\":").append(process.uid());
            out.append(",\"argv\":[");
            List<String> argv = process.argv();
            for (int a = 0; a < argv.size(); a++) {
                if (a > 0) {
                    out.append(',');
                }
                string(out, argv.get(a));
            }
            out.append("],\"cwd\":");
            string(out, Optional.ofNullable(process.cwd()));
            out.append(",\"exe\":");
            string(out, Optional.ofNullable(process.exe()));
            out.append(",\"inode\":").append(process.inode());
            out.append('}');
        }
        out.append("],\"container\":");
        OwnerEvidence.Container container = evidence.container();
        if (container == null) {
            out.append("null}");
            return;
        }
        out.append("{\"id\":");
        string(out, container.id());
        out.append(",\"name\":");
        string(out, container.name());
        out.append(",\"labels\":{");
        boolean first = true;
        for (Map.Entry<String, String> label : container.labels().entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            string(out, label.getKey());
            out.append(':');
            string(out, label.getValue());
        }
        out.append("}}}");
    }

    /** {@code value} as a JSON string; empty as JSON null. */
    private static void string(StringBuilder out, Optional<String> value) {
        value.ifPresentOrElse(text -> string(out, text), () -> out.append("null"));
    }

    /** {@code value} as a JSON string, escaped. */
    private static void string(StringBuilder out, String value) {
        out.append('"');
        int plain = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '"' && c != '\\' && !ControlEscapes.isEscaped(c)) {
                continue;
            }
            out.append(value, plain, i);
            plain = i + 1;
            escape(out, c);
        }
        out.append(value, plain, value.length()).append('"');
    }

    /** As Jackson writes it: a short escape where JSON has one, else {@code \\uXXXX}; past DEL in lower case, as {@link ControlEscapes} gives it. */
    private static void escape(StringBuilder out, char c) {
        switch (c) {
            case '"' -> out.append("\\\"");
            case '\\' -> out.append("\\\\");
            case '\b' -> out.append("\\b");
            case '\t' -> out.append("\\t");
            case '\n' -> out.append("\\n");
            case '\f' -> out.append("\\f");
            case '\r' -> out.append("\\r");
            default -> {
                if (c <= 0x7f) {
                    out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                } else {
                    out.append(String.format("\\u%04x", (int) c));
                }
            }
        }
    }
}
