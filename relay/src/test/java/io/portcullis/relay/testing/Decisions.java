package io.portcullis.relay.testing;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Decision records for tests, built field by field from a plain allowed CONNECT of spawn
 * {@code studio}; {@link #build()} checks them as the relay's own are checked.
 */
public final class Decisions {
    private Instant time = Instant.parse("2026-11-29T08:00:00Z");
    private String spawn = "studio";
    private long connection = 1;
    private String kind = "proxy";
    private boolean open;
    private Optional<String> target = Optional.empty();
    private List<InetAddress> resolved = List.of();
    private Optional<InetSocketAddress> dialed = Optional.empty();
    private Decision.Result verdict = Decision.Result.ALLOW;
    private Optional<DenyCode> code = Optional.empty();
    private String reason = "allowed by test";
    private Optional<OwnerEvidence> owner = Optional.empty();
    private long bytesUp;
    private long bytesDown;
    private long durationMillis = 1;
    private Decision.Timings timings = Decision.Timings.NONE;
    private long generation = 1;
    private long revision = 1;
    private Optional<Decision.End> end = Optional.empty();
    private Optional<Decision.Shadow> shadow = Optional.empty();
    private Optional<Decision.Upstream> upstream = Optional.empty();
    private Optional<String> method = Optional.empty();

    private Decisions() {}

    public static Decisions decision() {
        return new Decisions();
    }

    public Decisions spawn(String value) {
        spawn = value;
        return this;
    }

    public Decisions connection(long value) {
        connection = value;
        return this;
    }

    public Decisions kind(String value) {
        kind = value;
        return this;
    }

    public Decisions target(String value) {
        target = Optional.ofNullable(value);
        return this;
    }

    /** Addresses as text, each a literal. */
    public Decisions resolved(String... addresses) {
        resolved = Arrays.stream(addresses).map(Decisions::literal).toList();
        return this;
    }

    public Decisions dialed(String address, int port) {
        dialed = Optional.of(new InetSocketAddress(literal(address), port));
        return this;
    }

    /** The line's verdict and code as they are written: {@code allow} with null, {@code deny} or {@code error} with a code. */
    public Decisions verdict(String outcome, String wireCode) {
        verdict = switch (outcome) {
            case "allow" -> Decision.Result.ALLOW;
            case "deny" -> Decision.Result.DENY;
            case "error" -> Decision.Result.ERROR;
            default -> throw new IllegalArgumentException("outcome: " + outcome + " (expected: allow, deny or error)");
        };
        code = Optional.ofNullable(wireCode)
                .map(text -> DenyCode.of(text)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "code: " + text + " (expected: a deny code's wire name)")));
        return this;
    }

    public Decisions open(boolean value) {
        open = value;
        return this;
    }

    public Decisions reason(String value) {
        reason = value;
        return this;
    }

    /** Each in microseconds, negative for none. */
    public Decisions timings(long dns, long owner, long connect) {
        timings = new Decision.Timings(micros(dns), micros(owner), micros(connect));
        return this;
    }

    private static OptionalLong micros(long value) {
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    public Decisions revision(long value) {
        revision = value;
        return this;
    }

    public Decisions owner(OwnerEvidence value) {
        owner = Optional.ofNullable(value);
        return this;
    }

    public Decisions bytes(long up, long down) {
        bytesUp = up;
        bytesDown = down;
        return this;
    }

    public Decisions durationMillis(long value) {
        durationMillis = value;
        return this;
    }

    public Decisions generation(long value) {
        generation = value;
        return this;
    }

    public Decisions end(Decision.End value) {
        end = Optional.of(value);
        return this;
    }

    public Decisions time(Instant value) {
        time = value;
        return this;
    }

    public Decisions shadow(Decision.Shadow value) {
        shadow = Optional.of(value);
        return this;
    }

    public Decisions upstream(Decision.Upstream value) {
        upstream = Optional.of(value);
        return this;
    }

    public Decisions method(String value) {
        method = Optional.ofNullable(value);
        return this;
    }

    public Decision build() {
        return new Decision(
                time,
                spawn,
                connection,
                kind,
                open,
                target,
                resolved,
                dialed,
                verdict,
                code,
                reason,
                owner,
                bytesUp,
                bytesDown,
                durationMillis,
                timings,
                generation,
                revision,
                end,
                shadow,
                upstream,
                method);
    }

    /** The literal {@code address}, read by the relay's own parser: a name is refused, never looked up. */
    private static InetAddress literal(String address) {
        return Target.parse(address.indexOf(':') >= 0 ? "[" + address + "]:1" : address + ":1")
                .literal()
                .orElseThrow(() -> new IllegalArgumentException(
                        "address: " + address + " (expected: an IP literal, never a name)"));
    }
}
