package io.portcullis.relay.policy;

import io.portcullis.owner.OwnerEvidence;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The answer for one connection: allow and dial exactly these addresses, or deny with a code. */
public sealed interface Verdict permits Verdict.Allow, Verdict.Deny {

    /** Every address the target resolved to (or its literal), in answer order; may be empty. */
    List<InetAddress> resolved();

    /** What the owner check saw (SPEC R17's owner evidence); empty when it was not asked. */
    Optional<OwnerEvidence> owner();

    /**
     * Allowed: dial {@code dial} in order, the next on failure, and nothing else.
     *
     * @param detail one line on why (which entry or shape allowed it)
     * @param owner what the owner check saw; empty when it was not asked
     * @param first what a CONNECT tunnel must carry first (R23); forwards and doors ignore it
     * @param target the target that was judged, when the judge says: an upstream proxy (R25) is
     *     told its name with {@code sendNames}, and a bypass may name it
     */
    record Allow(
            List<InetSocketAddress> dial,
            List<InetAddress> resolved,
            String detail,
            Optional<OwnerEvidence> owner,
            FirstBytes first,
            Optional<Target> target)
            implements Verdict {
        public Allow {
            dial = List.copyOf(dial);
            resolved = List.copyOf(resolved);
            Objects.requireNonNull(detail, "detail");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(first, "first");
            Objects.requireNonNull(target, "target");
            if (dial.isEmpty()) {
                throw new IllegalArgumentException("dial: [] (expected: at least one checked address)");
            }
        }

        public Allow(List<InetSocketAddress> dial, List<InetAddress> resolved, String detail) {
            this(dial, resolved, detail, Optional.empty(), FirstBytes.ANY, Optional.empty());
        }

        /** This verdict with the owner check's evidence. */
        public Allow withOwner(OwnerEvidence evidence) {
            return new Allow(dial, resolved, detail, Optional.of(evidence), first, target);
        }

        /** This verdict with what a CONNECT tunnel must carry first. */
        public Allow withFirst(FirstBytes bytes) {
            return new Allow(dial, resolved, detail, owner, bytes, target);
        }

        /** This verdict naming the target it allowed. */
        public Allow withTarget(Target judged) {
            return new Allow(dial, resolved, detail, owner, first, Optional.of(judged));
        }
    }

    /**
     * Refused with a stable code and one line of detail.
     *
     * @param owner what the owner check saw; empty when it was not asked
     */
    record Deny(DenyCode code, String detail, List<InetAddress> resolved, Optional<OwnerEvidence> owner)
            implements Verdict {
        public Deny {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(detail, "detail");
            resolved = List.copyOf(resolved);
            Objects.requireNonNull(owner, "owner");
        }

        /** Refused by, or after, the owner check, with what it saw. */
        public Deny(DenyCode code, String detail, List<InetAddress> resolved, OwnerEvidence owner) {
            this(code, detail, resolved, Optional.of(owner));
        }

        public Deny(DenyCode code, String detail, List<InetAddress> resolved) {
            this(code, detail, resolved, Optional.empty());
        }

        public Deny(DenyCode code, String detail) {
            this(code, detail, List.of());
        }
    }
}
