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
import java.util.OptionalLong;

/**
 * The decision line of one connection (SPEC R17). A connection that reached its target has its
 * line written then ({@code open}: its end follows as an end line); every other
 * connection has it written once, when it ends. The record a {@link DecisionSink} is given at the
 * end is whole either way. The component names are the JSON field names and do not change; an
 * empty component is JSON {@code null}, and addresses are written in their canonical text (IPv6
 * in brackets with a port, RFC 5952), deny codes as their wire names ({@link LogJson}).
 *
 * @param time when the connection was accepted (ISO-8601 UTC in the line)
 * @param spawn the spawn's id
 * @param connection the connection id, unique within the relay process
 * @param kind {@code proxy}, {@code forward}, {@code door}, {@code named}, {@code dns}, {@code
 *     handoff}, {@code listener} (a handed-over socket that stopped accepting), or {@code unknown}
 * @param open whether the line was written when the connection reached its target, before a byte
 *     was copied: its end line follows when it ends; false for a line written at the end
 * @param target the requested target as the client sent it; empty when none was read
 * @param resolved every address the target resolved to, in answer order
 * @param dialed the last address the relay dialed; empty when it dialed none
 * @param verdict allowed, denied, or an error (allowed, but the upstream failed)
 * @param code the deny or error code; empty exactly when allowed and connected
 * @param reason why the verdict and code are what they are: the judge's own words for its verdict,
 *     or those of the later step that set the code (a failed dial, the first bytes, the exchange),
 *     or the code's sentence when that step said no more
 * @param owner the owner check's evidence; empty when the owner check was not asked
 * @param bytesUp bytes copied from the client to the target
 * @param bytesDown bytes copied from the target to the client
 * @param durationMillis from accept to close; for an {@code open} line, from accept to the moment
 *     the target answered
 * @param timings how long the decision's DNS lookup and owner check and the dial took
 * @param generation the host configuration generation the connection was judged with (1 at start,
 *     one more at each reload that took effect)
 * @param revision the revision of the spawn's policy the connection was judged with (1 when the
 *     spawn opened, one more at each change of it in place); 0 where no policy judged it
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
        boolean open,
        Optional<String> target,
        List<InetAddress> resolved,
        Optional<InetSocketAddress> dialed,
        Result verdict,
        Optional<DenyCode> code,
        String reason,
        Optional<OwnerEvidence> owner,
        long bytesUp,
        long bytesDown,
        long durationMillis,
        Timings timings,
        long generation,
        long revision,
        Optional<End> end,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Shadow> shadow,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Upstream> upstream,
        @JsonIgnore Optional<String> method) {

    /** What the relay did with the connection: the line's {@code verdict}. */
    public enum Result {
        ALLOW("allow"),
        DENY("deny"),
        /** Allowed, but the upstream failed or the relay did. */
        ERROR("error");

        private final String text;

        Result(String text) {
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
     * How long the parts of a decision took, in microseconds: each null in the line when that part
     * was not asked (a literal address needs no lookup; only this host's own addresses ask the
     * owner check; a refusal dials nothing).
     *
     * @param dnsMicros from the DNS query to its answer (a cached answer's time is the cache's)
     * @param ownerMicros from the first owner question to the last answer
     * @param connectMicros from the first dial to the answer, every address tried included (through
     *     the upstream proxy: to its answer to the CONNECT)
     */
    public record Timings(OptionalLong dnsMicros, OptionalLong ownerMicros, OptionalLong connectMicros) {
        /** Nothing was asked. */
        public static final Timings NONE =
                new Timings(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

        public Timings {
            Objects.requireNonNull(dnsMicros, "dnsMicros");
            Objects.requireNonNull(ownerMicros, "ownerMicros");
            Objects.requireNonNull(connectMicros, "connectMicros");
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
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(timings, "timings");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(shadow, "shadow");
        Objects.requireNonNull(upstream, "upstream");
        Objects.requireNonNull(method, "method");
        if ((verdict == Result.ALLOW) == code.isPresent()) {
            throw new IllegalArgumentException("code: " + code + " (expected: empty exactly when allowed)");
        }
        if (generation < 0 || revision < 0) {
            throw new IllegalArgumentException(
                    "generation/revision: " + generation + "/" + revision + " (expected: >= 0)");
        }
        if (bytesUp < 0 || bytesDown < 0 || durationMillis < 0) {
            throw new IllegalArgumentException("bytesUp/bytesDown/durationMillis: " + bytesUp + "/" + bytesDown + "/"
                    + durationMillis + " (expected: >= 0)");
        }
    }

    /** Whether the relay let the connection through. */
    public boolean allowed() {
        return verdict == Result.ALLOW;
    }
}
