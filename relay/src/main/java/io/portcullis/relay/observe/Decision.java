package io.portcullis.relay.observe;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.portcullis.owner.OwnerEvidence;
import java.util.List;
import java.util.Objects;

/**
 * The decision line of one connection (SPEC R17), written once when the connection ends. The
 * component names are the JSON field names and do not change.
 *
 * @param time when the connection was accepted, ISO-8601 UTC
 * @param spawn the spawn's id
 * @param connection the connection id, unique within the relay process
 * @param kind {@code proxy}, {@code forward}, {@code door}, or {@code unknown} before a valid preamble
 * @param target the requested target as the client sent it; null when none was read
 * @param resolved every address the target resolved to, in answer order
 * @param dialed the last address the relay dialed ({@code ip:port}); null when it dialed none
 * @param verdict {@code allow}, {@code deny}, or {@code error} (allowed, but the upstream failed)
 * @param code the deny or error code; null when allowed and connected
 * @param owner the owner check's evidence; null when the owner check was not asked
 * @param bytesUp bytes copied from the client to the target
 * @param bytesDown bytes copied from the target to the client
 * @param durationMillis from accept to close
 * @param generation the host configuration generation the connection was judged with (1 at start,
 *     one more at each reload that took effect)
 * @param end how a tunnel ended when it did not end in order: {@code upstream-reset} (the upstream
 *     side failed, a reset or another I/O error, and the client was reset in turn) or {@code
 *     client-reset} (the other way round); null otherwise
 * @param shadow what the spawn's shadow policy would have answered (SPEC R26), only when that
 *     differs from {@code verdict} and {@code code}; left out of the line otherwise
 * @param upstream the upstream proxy the connection went through (SPEC R25), and what it
 *     answered; left out of the line when the target was dialed directly
 * @param method the request's method on the proxy port ({@code CONNECT}, {@code GET}...), for the
 *     readable line of {@code portcullis run}; never in the JSON line; null when none was read
 */
public record Decision(
        String time,
        String spawn,
        long connection,
        String kind,
        String target,
        List<String> resolved,
        String dialed,
        String verdict,
        String code,
        OwnerEvidence owner,
        long bytesUp,
        long bytesDown,
        long durationMillis,
        long generation,
        String end,
        @JsonInclude(JsonInclude.Include.NON_NULL) Shadow shadow,
        @JsonInclude(JsonInclude.Include.NON_NULL) Upstream upstream,
        @JsonIgnore String method) {

    /**
     * The upstream proxy of one connection.
     *
     * @param proxy the proxy's address that was dialed ({@code ip:port})
     * @param sent what the relay asked of it: {@code CONNECT} and the authority, or the absolute
     *     form of a plain HTTP request's target
     * @param status the proxy's status for a CONNECT; null when it gave none, and for plain HTTP,
     *     whose answer is the client's
     */
    public record Upstream(
            String proxy,
            String sent,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer status) {
        public Upstream {
            Objects.requireNonNull(proxy, "proxy");
            Objects.requireNonNull(sent, "sent");
        }
    }

    /**
     * The shadow policy's answer where it differs from the enforced one.
     *
     * @param verdict {@code allow}, {@code deny}, or {@code unknown} (the shadow would have needed a
     *     DNS lookup that the enforced decision did not make, and the shadow makes none)
     * @param code the shadow's deny code; null unless denied
     */
    public record Shadow(String verdict, String code) {
        public static final String UNKNOWN = "unknown";

        public Shadow {
            Objects.requireNonNull(verdict, "verdict");
            if (verdict.equals(DENY) == (code == null)) {
                throw new IllegalArgumentException("code: " + code + " (expected: a code exactly when denied)");
            }
        }
    }

    public static final String ALLOW = "allow";
    public static final String UPSTREAM_RESET = "upstream-reset";
    public static final String CLIENT_RESET = "client-reset";
    public static final String DENY = "deny";
    public static final String ERROR = "error";

    public Decision {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(spawn, "spawn");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(verdict, "verdict");
        resolved = List.copyOf(resolved);
        if (!verdict.equals(ALLOW) && !verdict.equals(DENY) && !verdict.equals(ERROR)) {
            throw new IllegalArgumentException("verdict: " + verdict + " (expected: allow, deny or error)");
        }
        if (verdict.equals(ALLOW) != (code == null)) {
            throw new IllegalArgumentException("code: " + code + " (expected: null exactly when allowed)");
        }
        if (end != null && !end.equals(UPSTREAM_RESET) && !end.equals(CLIENT_RESET)) {
            throw new IllegalArgumentException("end: " + end + " (expected: null, upstream-reset or client-reset)");
        }
        if (generation < 0) {
            throw new IllegalArgumentException("generation: " + generation + " (expected: >= 0)");
        }
        if (bytesUp < 0 || bytesDown < 0 || durationMillis < 0) {
            throw new IllegalArgumentException("bytesUp/bytesDown/durationMillis: " + bytesUp + "/" + bytesDown + "/"
                    + durationMillis + " (expected: >= 0)");
        }
    }

    /** A decision whose request method is not known. */
    public Decision(
            String time,
            String spawn,
            long connection,
            String kind,
            String target,
            List<String> resolved,
            String dialed,
            String verdict,
            String code,
            OwnerEvidence owner,
            long bytesUp,
            long bytesDown,
            long durationMillis,
            long generation,
            String end,
            Shadow shadow) {
        this(
                time,
                spawn,
                connection,
                kind,
                target,
                resolved,
                dialed,
                verdict,
                code,
                owner,
                bytesUp,
                bytesDown,
                durationMillis,
                generation,
                end,
                shadow,
                null,
                null);
    }

    /** A decision of a spawn without a shadow, or whose shadow agreed. */
    public Decision(
            String time,
            String spawn,
            long connection,
            String kind,
            String target,
            List<String> resolved,
            String dialed,
            String verdict,
            String code,
            OwnerEvidence owner,
            long bytesUp,
            long bytesDown,
            long durationMillis,
            long generation,
            String end) {
        this(
                time,
                spawn,
                connection,
                kind,
                target,
                resolved,
                dialed,
                verdict,
                code,
                owner,
                bytesUp,
                bytesDown,
                durationMillis,
                generation,
                end,
                (Shadow) null);
    }

    /** A decision whose tunnel, if any, ended in order. */
    public Decision(
            String time,
            String spawn,
            long connection,
            String kind,
            String target,
            List<String> resolved,
            String dialed,
            String verdict,
            String code,
            OwnerEvidence owner,
            long bytesUp,
            long bytesDown,
            long durationMillis,
            long generation) {
        this(
                time,
                spawn,
                connection,
                kind,
                target,
                resolved,
                dialed,
                verdict,
                code,
                owner,
                bytesUp,
                bytesDown,
                durationMillis,
                generation,
                null);
    }
}
