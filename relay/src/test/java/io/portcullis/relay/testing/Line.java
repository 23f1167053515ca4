package io.portcullis.relay.testing;

import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.util.List;

/**
 * A decision record as its JSON line reads (SPEC R17): every field as the line's text, null where
 * the line has null. Tests compare what a person reading the log would see.
 */
public record Line(
        String kind,
        String target,
        List<String> resolved,
        String dialed,
        String verdict,
        String code,
        OwnerEvidence owner,
        String end,
        Shadow shadow,
        Upstream upstream) {

    /** The line's {@code shadow}, null when the line leaves it out. */
    public record Shadow(String verdict, String code) {}

    /** The line's {@code upstream}, null when the line leaves it out. */
    public record Upstream(String proxy, String sent, Integer status) {}

    public static Line of(Decision decision) {
        return new Line(
                decision.kind(),
                decision.target().orElse(null),
                decision.resolved().stream().map(Line::text).toList(),
                decision.dialed().map(Target::text).orElse(null),
                decision.verdict().toString(),
                decision.code().map(DenyCode::code).orElse(null),
                decision.owner().orElse(null),
                decision.end().map(Decision.End::toString).orElse(null),
                decision.shadow()
                        .map(s -> new Shadow(
                                s.verdict(), s.code().map(DenyCode::code).orElse(null)))
                        .orElse(null),
                decision.upstream()
                        .map(u -> new Upstream(
                                Target.text(u.proxy()), u.sent(), u.status().orElse(null)))
                        .orElse(null));
    }

    private static String text(InetAddress address) {
        return Target.text(address);
    }
}
