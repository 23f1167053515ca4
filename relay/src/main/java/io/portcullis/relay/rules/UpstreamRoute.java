package io.portcullis.relay.rules;

import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The upstream proxy's rules (SPEC R25), pure: which allowed targets it carries (those outside this
 * host that the bypass does not name: a target the owner check judged, or a loopback one, is
 * dialed directly), what it is told (each checked address, so it resolves nothing, or the target's
 * name with {@code sendNames}), and whether its own addresses may be dialed: outside the deny list,
 * as every address the relay dials ({@link Rules#denyListed}), and not the target itself.
 */
public final class UpstreamRoute {
    private final HostConfig.Upstream config;
    private final Rules rules;

    public UpstreamRoute(HostConfig.Upstream config, Rules rules) {
        this.config = Objects.requireNonNull(config, "config");
        this.rules = Objects.requireNonNull(rules, "rules");
    }

    public HostConfig.Upstream config() {
        return config;
    }

    /** Whether {@code allow} goes through the proxy: its target is outside this host and not bypassed. */
    public boolean carries(Verdict.Allow allow) {
        if (allow.owner().isPresent()) {
            return false;
        }
        List<InetAddress> addresses = new ArrayList<>(allow.dial().size());
        for (InetSocketAddress address : allow.dial()) {
            if (address.getAddress().isLoopbackAddress()) {
                return false;
            }
            addresses.add(address.getAddress());
        }
        return !config.bypasses(allow.target().filter(Target::isName).map(Target::host), addresses);
    }

    /** What the CONNECTs name: each checked address in order, or the target's name with {@code sendNames}. */
    public List<String> authorities(Verdict.Allow allow) {
        if (sendsName(allow)) {
            return List.of(allow.target().orElseThrow().toString());
        }
        return allow.dial().stream().map(Target::text).toList();
    }

    /** The checked address that the {@code index}th authority names; empty when it names the target's name. */
    public Optional<InetSocketAddress> checked(Verdict.Allow allow, int index) {
        return sendsName(allow) ? Optional.empty() : Optional.of(allow.dial().get(index));
    }

    private boolean sendsName(Verdict.Allow allow) {
        return config.sendNames() && allow.target().filter(Target::isName).isPresent();
    }

    /** The proxy's addresses, judged: all of them usable, or why not. */
    public sealed interface Proxy permits Usable, Unusable {}

    /** Every address of the proxy may be dialed, on the proxy's port. */
    public record Usable(List<InetSocketAddress> addresses) implements Proxy {
        public Usable {
            addresses = List.copyOf(addresses);
        }
    }

    /**
     * The proxy's address is in the deny list ({@code upstream-failed}), or the target is the proxy
     * itself ({@code upstream-refused}).
     */
    public record Unusable(DenyCode code, String detail) implements Proxy {
        public Unusable {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /** Judges the proxy's {@code addresses} (its literal, or what its name resolved to) for {@code allow}. */
    public Proxy judge(List<InetAddress> addresses, Verdict.Allow allow) {
        List<InetSocketAddress> usable = new ArrayList<>(addresses.size());
        for (InetAddress address : addresses) {
            Optional<String> listed = rules.denyListed(address);
            if (listed.isPresent()) {
                return new Unusable(
                        DenyCode.UPSTREAM_FAILED, "the upstream proxy's address is in the deny list: " + listed.get());
            }
            for (InetSocketAddress target : allow.dial()) {
                if (target.getAddress().equals(address)) {
                    // Asked to reach itself, a proxy would do so from inside its own perimeter.
                    return new Unusable(
                            DenyCode.UPSTREAM_REFUSED,
                            "the target " + Target.text(target) + " is the upstream proxy itself");
                }
            }
            usable.add(new InetSocketAddress(address, config.proxy().port()));
        }
        return new Usable(usable);
    }
}
