package io.portcullis.relay.judge;

import io.portcullis.relay.policy.Took;
import io.portcullis.relay.policy.Verdict;
import java.util.Objects;

/**
 * What a spawn's judge answered for one request: the verdict enforced, what the spawn's shadow
 * policy would have answered beside it (SPEC R26), and how long the enforced decision's DNS lookup
 * and owner check took.
 */
public record Judged(Verdict verdict, Shadow shadow, Took took) {
    public Judged {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(shadow, "shadow");
        Objects.requireNonNull(took, "took");
    }

    /** The verdict of a spawn without a shadow policy. */
    public static Judged alone(Verdict verdict, Took took) {
        return new Judged(verdict, Shadow.NONE, took);
    }

    /** What the shadow policy said. */
    public sealed interface Shadow permits None, Unknown, Said {
        /** The spawn has no shadow policy. */
        Shadow NONE = new None();

        /** The shadow could not tell without a lookup of its own, or its judge failed. */
        Shadow UNKNOWN = new Unknown();
    }

    /** No shadow policy. */
    public record None() implements Shadow {}

    /** A shadow policy that could not tell. */
    public record Unknown() implements Shadow {}

    /** The shadow policy's verdict. */
    public record Said(Verdict verdict) implements Shadow {
        public Said {
            Objects.requireNonNull(verdict, "verdict");
        }
    }
}
