package io.portcullis.relay.rules;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Where a decision stands between the pure rules and the world (DNS, the owner check). */
public sealed interface Step permits Step.Decided, Step.Resolve, Step.AskOwner {

    /** The verdict is known. */
    record Decided(Verdict verdict) implements Step {
        public Decided {
            Objects.requireNonNull(verdict, "verdict");
        }
    }

    /**
     * The target may be allowed, depending on its addresses.
     *
     * @param entry the listed entry; empty for the internet shape
     * @param literal the addresses to judge without DNS (a literal or {@code localhost}); empty
     *     when the name must be resolved
     */
    record Resolve(Target target, Optional<SpawnPolicy.Entry> entry, List<InetAddress> literal, FirstBytes first)
            implements Step {
        public Resolve {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(entry, "entry");
            literal = List.copyOf(literal);
            Objects.requireNonNull(first, "first");
        }

        /** A plan whose tunnel may carry any bytes first. */
        public Resolve(Target target, Optional<SpawnPolicy.Entry> entry, List<InetAddress> literal) {
            this(target, entry, literal, FirstBytes.ANY);
        }

        /** True when the name must go to DNS. */
        public boolean needsDns() {
            return literal.isEmpty();
        }
    }

    /**
     * Every address passed; those on this host need the owner check (R11), all of them allowing.
     *
     * @param allow the verdict when every answer allows
     */
    record AskOwner(List<OwnerQuery> queries, Verdict.Allow allow) implements Step {
        public AskOwner {
            queries = List.copyOf(queries);
            Objects.requireNonNull(allow, "allow");
            if (queries.isEmpty()) {
                throw new IllegalArgumentException("queries: [] (expected: at least one)");
            }
        }
    }
}
