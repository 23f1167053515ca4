package io.portcullis.relay.observe;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.policy.DenyCode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The decision line of one connection (SPEC R17), written once when the connection ends. The
 * component names are the JSON field names and do not change; an empty component is JSON
 * {@code null}, and addresses are written in their canonical text (IPv6 in brackets with a port,
 * RFC 5952), deny codes as their wire names ({@link LogJson}).
 *
 * @param time when the connection was accepted (ISO-8601 UTC in the line)
 * @param spawn the spawn's id
 * @param connection the connection id, unique within the relay process
 * @param kind {@code proxy}, {@code forward}, {@code door}, {@code named}, {@code dns}, {@code
 *     handoff}, {@code listener} (a handed-over socket that stopped accepting), or {@code unknown}
 * @param target the requested target as the client sent it; empty when none was read
 * @param resolved every address the target resolved to, in answer order
 * @param dialed the last address the relay dialed; empty when it dialed none
 * @param verdict allowed, denied, or an error (allowed, but the upstream failed)
 * @param code the deny or error code; empty exactly when allowed and connected
 * @param owner the owner check's evidence; empty when the owner check was not asked
 * @param bytesUp bytes copied from the client to the target
 * @param bytesDown bytes copied from the target to the client
 * @param durationMillis from accept to close
 * @param generation the host configuration generation the connection was judged with (1 at start,
 *     one more at each reload that took effect)
 * @param end how a tunnel ended when it did not end in order; empty otherwise
 * @param shadow what the spawn's shadow policy would have answered (SPEC R26), only when that
 *     differs from {@code verdict} and {@code code}; left out of the line otherwise
 * @param upstream the upstream proxy the connection went through (SPEC R25), and what it
 *     answered; left out of the line when the target was dialed directly
 * @param method the request's method on the proxy port ({@code CONNECT}, {@code GET}...), for the
 *     readable line of {@code portcullis run}; never in the JSON line; empty when none was read
 */
public record Decision(
        Instant time,
        String spawn,
        long connection,
        String kind,
        Optional<String> target,
        List<InetAddress> resolved,
        Optional<InetSocketAddress> dialed,
        Outcome verdict,
        Optional<DenyCode> code,
        Optional<OwnerEvidence> owner,
        long bytesUp,
        long bytesDown,
        long durationMillis,
        long generation,
        Optional<End> end,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Shadow> shadow,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Upstream> upstream,
        @JsonIgnore Optional<String> method) {

    /** What the relay did with the connection: the line's {@code verdict}. */
    public enum Outcome {
        ALLOW("allow"),
        DENY("deny"),
        /** Allowed, but the upstream failed or the relay did. */
        ERROR("error");

        private final String text;

        Outcome(String text) {
            this.text = text;
        }

        /** As the line writes it. */
        @JsonValue
        @Override
        public String toString() {
            return text;
        }
    }

    /** How a tunnel ended when it did not end in order: the line's {@code end}. */
    public enum End {
        /** The upstream side failed (a reset, or another I/O error), and the client was reset in turn. */
        UPSTREAM_RESET("upstream-reset"),
        /** The client side failed, and the upstream was reset in turn. */
        CLIENT_RESET("client-reset");

        private final String text;

        End(String text) {
            this.text = text;
        }

        /** As the line writes it. */
        @JsonValue
        @Override
        public String toString() {
            return text;
        }
    }

    /**
     * The upstream proxy of one connection.
     *
     * @param proxy the proxy's address that was dialed
     * @param sent what the relay asked of it: {@code CONNECT} and the authority, or the absolute
     *     form of a plain HTTP request's target
     * @param status the proxy's status for a CONNECT; empty when it gave none, and for plain HTTP,
     *     whose answer is the client's
     */
    public record Upstream(
            InetSocketAddress proxy,
            String sent,
            @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Integer> status) {
        public Upstream {
            Objects.requireNonNull(proxy, "proxy");
            Objects.requireNonNull(sent, "sent");
            Objects.requireNonNull(status, "status");
        }
    }

    /**
     * The shadow policy's answer where it differs from the enforced one.
     *
     * @param verdict {@code allow}, {@code deny}, or {@code unknown} (the shadow would have needed a
     *     DNS lookup that the enforced decision did not make, and the shadow makes none)
     * @param code the shadow's deny code; present exactly when denied
     */
    public record Shadow(String verdict, Optional<DenyCode> code) {
        public static final String ALLOW = "allow";
        public static final String DENY = "deny";
        public static final String UNKNOWN = "unknown";

        public Shadow {
            Objects.requireNonNull(verdict, "verdict");
            Objects.requireNonNull(code, "code");
            if (!verdict.equals(ALLOW) && !verdict.equals(DENY) && !verdict.equals(UNKNOWN)) {
                throw new IllegalArgumentException("verdict: " + verdict + " (expected: allow, deny or unknown)");
            }
            if (verdict.equals(DENY) != code.isPresent()) {
                throw new IllegalArgumentException("code: " + code + " (expected: a code exactly when denied)");
            }
        }
    }

    public Decision {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(spawn, "spawn");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
        resolved = List.copyOf(resolved);
        Objects.requireNonNull(dialed, "dialed");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(shadow, "shadow");
        Objects.requireNonNull(upstream, "upstream");
        Objects.requireNonNull(method, "method");
        if ((verdict == Outcome.ALLOW) == code.isPresent()) {
            throw new IllegalArgumentException("code: " + code + " (expected: empty exactly when allowed)");
        }
        if (generation < 0) {
            throw new IllegalArgumentException("generation: " + generation + " (expected: >= 0)");
        }
        if (bytesUp < 0 || bytesDown < 0 || durationMillis < 0) {
            throw new IllegalArgumentException("bytesUp/bytesDown/durationMillis: " + bytesUp + "/" + bytesDown + "/"
                    + durationMillis + " (expected: >= 0)");
        }
    }

    /** Whether the relay let the connection through. */
    public boolean allowed() {
        return verdict == Outcome.ALLOW;
    }
}
