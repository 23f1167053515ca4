package io.portcullis.relay.rules;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.relay.address.Ip;
import io.portcullis.relay.address.Literals;
import io.portcullis.relay.policy.Cidr;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.DenyList;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pure decision rules: no I/O, no clock, no logging. A decision runs in up to three steps,
 * the caller doing the world's part between them: {@link #plan} (before DNS), {@link #onAddresses}
 * (on the resolved addresses), {@link #afterOwner} (on the owner check's answers).
 *
 * <p>Order of evaluation:
 * <ol>
 *   <li>network {@code none}: {@code mode-none} (nothing is parsed or resolved);
 *   <li>a forward: the loopback entry on that port, else {@code not-listed};
 *   <li>the target's syntax (R7): {@code bad-request};
 *   <li>a listed entry of a scheme serving this kind of request (R11): a manifest default must
 *       name a loopback host ({@code default-not-loopback}) and not the gateway's port
 *       ({@code default-gateway-port}) (R12);
 *   <li>no entry: plain HTTP and {@code listed} mode stop at {@code not-listed}; the internet shape
 *       needs port 443 ({@code port-not-allowed}) and a name that is not one of this host's own
 *       ({@code own-address}) (R8);
 *   <li>the internet shape, while an own name of this host cannot be resolved:
 *       {@code own-names-unresolved} (R15; {@link #unresolvedOwnNames}, before DNS and again in
 *       {@link #onAddresses});
 *   <li>resolution, once, only when the target could still be allowed (R9; done by the caller);
 *   <li>every address, and any IPv4 address embedded in it: for the internet shape,
 *       {@code not-global-unicast} (R14), then {@code own-address} (R15), then {@code deny-listed};
 *       for a listed entry, {@code deny-listed}; then, whatever the shape, an address of this host
 *       (R15, mapped forms included) on {@code owner.gatewayPort}: {@code gateway-port} (R13), since
 *       that port is reached over the door only, whatever the owner check would answer; then this
 *       host's own addresses go to the owner check; one bad address denies the whole target; an
 *       IPv4-mapped or -compatible address is asked about and dialed as its IPv4 address (R14);
 *   <li>the owner check for each own address of a listed entry (R11, R30), and for each address in
 *       a Docker network of this host, listed or not (R32): any refusal is the answer.
 * </ol>
 *
 * <p>An allowed CONNECT on the internet shape or to a listed {@code https} entry must then carry a
 * TLS ClientHello for its host first ({@link FirstBytes}, R23); the tunnel checks that.
 */
public final class Rules {
    private static final InetAddress LOCALHOST = InetAddress.ofLiteral("127.0.0.1");
    private static final String INTERNET_SHAPE = "internet shape: every address is global unicast";

    private final DenyList denyList;
    private final Set<String> ownNames;
    private final int gatewayPort;

    public Rules(HostConfig host) {
        this.denyList = host.denyList();
        this.ownNames = Set.copyOf(host.ownNames());
        this.gatewayPort = host.owner().gatewayPort();
    }

    /** True when {@code address} and any IPv4 address it carries are global unicast (R14). */
    public static boolean isGlobalUnicast(InetAddress address) {
        return special(Ip.of(address)).isEmpty();
    }

    /** Steps 1-5: decides what needs no DNS, or says what to resolve. */
    public Step plan(SpawnPolicy spawn, Request request) {
        if (spawn.network() == SpawnPolicy.Network.NONE) {
            return deny(DenyCode.MODE_NONE, "spawn " + spawn.id() + " has network none");
        }
        if (request.kind() == Request.Kind.FORWARD) {
            Optional<SpawnPolicy.Entry> forward = spawn.forward(request.forwardPort());
            if (forward.isEmpty()) {
                return deny(DenyCode.NOT_LISTED, "no loopback entry forwards port " + request.forwardPort());
            }
            return listed(forward.get());
        }
        Target target;
        try {
            target = Target.parse(request.target());
        } catch (IllegalArgumentException e) {
            return deny(DenyCode.BAD_REQUEST, String.valueOf(e.getMessage()));
        }
        Optional<SpawnPolicy.Entry> entry = spawn.entry(target);
        if (entry.isPresent() && entry.get().scheme().serves(request.kind())) {
            Step step = listed(entry.get());
            boolean tls = request.kind() == Request.Kind.CONNECT && entry.get().scheme() == SpawnPolicy.Scheme.HTTPS;
            return tls && step instanceof Step.Resolve resolve
                    ? new Step.Resolve(
                            resolve.target(), resolve.entry(), resolve.literal(), FirstBytes.clientHelloFor(target))
                    : step;
        }
        String unlisted = entry.isPresent()
                ? target + " is listed for " + entry.get().scheme().json() + ", not for " + request.kind()
                : target + " is not listed";
        if (request.kind() == Request.Kind.HTTP) {
            return deny(DenyCode.NOT_LISTED, unlisted + "; plain HTTP reaches listed http entries only");
        }
        if (spawn.network() != SpawnPolicy.Network.INTERNET) {
            return deny(DenyCode.NOT_LISTED, unlisted + " and the network is listed");
        }
        if (target.port() != 443) {
            return deny(
                    DenyCode.PORT_NOT_ALLOWED,
                    unlisted + "; the internet shape allows port 443 only, not " + target.port());
        }
        if (ownNames.contains(target.host())) {
            return deny(DenyCode.OWN_ADDRESS, target.host() + " is one of this host's own names");
        }
        return new Step.Resolve(target, Optional.empty(), literal(target), FirstBytes.clientHelloFor(target));
    }

    private Step listed(SpawnPolicy.Entry entry) {
        Target target = entry.target();
        Optional<Verdict.Deny> refusal =
                entry.source() == OwnerQuery.Source.DEFAULT ? defaultRefusal(target) : Optional.empty();
        if (refusal.isPresent()) {
            return new Step.Decided(refusal.get());
        }
        return new Step.Resolve(target, Optional.of(entry), literal(target));
    }

    /**
     * The refusal of a manifest default naming {@code target} before any owner check (R12);
     * empty when there is none: it must name a loopback address, and not the gateway's port.
     */
    public Optional<Verdict.Deny> defaultRefusal(Target target) {
        if (!target.isLoopback()) {
            return Optional.of(new Verdict.Deny(
                    DenyCode.DEFAULT_NOT_LOOPBACK, "manifest default " + target + " does not name a loopback address"));
        }
        if (target.port() == gatewayPort) {
            return Optional.of(new Verdict.Deny(
                    DenyCode.DEFAULT_GATEWAY_PORT, "manifest default " + target + " names the gateway's port"));
        }
        return Optional.empty();
    }

    /** {@code localhost} is 127.0.0.1 without DNS, so a forward never depends on a resolver. */
    private static List<InetAddress> literal(Target target) {
        if (target.literal().isPresent()) {
            return List.of(target.literal().get());
        }
        return target.host().equals("localhost") ? List.of(LOCALHOST) : List.of();
    }

    /**
     * Step 6 (R15): the internet shape refuses every target while an own name is unresolved, since
     * this host's own addresses are then not all known; listed entries are unaffected.
     */
    public Optional<Verdict.Deny> unresolvedOwnNames(Step.Resolve plan, OwnAddresses own) {
        if (plan.entry().isPresent() || own.unresolvedNames().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Deny(
                DenyCode.OWN_NAMES_UNRESOLVED,
                plan.target() + ": this host's own name(s) " + String.join(", ", new TreeSet<>(own.unresolvedNames()))
                        + " cannot be resolved, so its own addresses are not all known"));
    }

    /** Step 8 on a host that knows no Docker network. */
    public Step onAddresses(SpawnPolicy spawn, Step.Resolve plan, List<InetAddress> addresses, OwnAddresses own) {
        return onAddresses(spawn, plan, addresses, own, DockerNetworks.NONE);
    }

    /**
     * Step 8: judges every address the target resolved to.
     *
     * @param docker where containers may have addresses: such an address goes to the owner check
     *     even when it is not this host's own (R32), listed or not
     */
    public Step onAddresses(
            SpawnPolicy spawn,
            Step.Resolve plan,
            List<InetAddress> addresses,
            OwnAddresses own,
            DockerNetworks docker) {
        Target target = plan.target();
        Optional<Verdict.Deny> unresolved = unresolvedOwnNames(plan, own);
        if (unresolved.isPresent()) {
            return new Step.Decided(unresolved.get());
        }
        if (addresses.isEmpty()) {
            return new Step.Decided(new Verdict.Deny(DenyCode.DNS_EMPTY, target.host() + " resolved to no address"));
        }
        List<OwnerQuery> queries = new ArrayList<>();
        for (InetAddress address : addresses) {
            Ip ip = Ip.of(address);
            boolean hostOwn = own.contains(ip);
            Optional<Verdict.Deny> refusal = (plan.entry().isEmpty() ? internet(address, ip, own) : listed(address, ip))
                    .or(() -> gatewayPort(ip, target.port(), hostOwn));
            if (refusal.isPresent()) {
                return new Step.Decided(new Verdict.Deny(
                        refusal.get().code(), target + ": " + refusal.get().detail(), addresses));
            }
            ownerQuery(spawn, plan, dialed(address), hostOwn, docker).ifPresent(queries::add);
        }
        List<InetSocketAddress> dial = new ArrayList<>(addresses.size());
        for (InetAddress address : addresses) {
            dial.add(new InetSocketAddress(dialed(address), target.port()));
        }
        String why = plan.entry()
                .map(entry -> "listed " + entry.scheme().json() + " entry")
                .orElse(INTERNET_SHAPE);
        Verdict.Allow allow =
                new Verdict.Allow(dial, addresses, why).withFirst(plan.first()).withTarget(target);
        return queries.isEmpty() ? new Step.Decided(allow) : new Step.AskOwner(queries, allow);
    }

    /**
     * The owner check's question about one address that passed; empty when none is asked: for a
     * listed entry, an own address (R11) with the entry's source; for a listed entry or the internet
     * shape, an address in a Docker network (R32), which is not this host's own, so only a
     * container can answer it. An unlisted target has no entry; it is asked as a manifest default
     * would be, the narrowest source: only this add-on's own compose project may answer.
     */
    private static Optional<OwnerQuery> ownerQuery(
            SpawnPolicy spawn, Step.Resolve plan, InetAddress address, boolean hostOwn, DockerNetworks docker) {
        OwnerQuery.Source source = plan.entry().map(SpawnPolicy.Entry::source).orElse(OwnerQuery.Source.DEFAULT);
        if (plan.entry().isPresent() && hostOwn) {
            return Optional.of(
                    new OwnerQuery(spawn.id(), source, address, plan.target().port(), true));
        }
        if (!hostOwn && docker.contains(address)) {
            return Optional.of(
                    new OwnerQuery(spawn.id(), source, address, plan.target().port(), false));
        }
        return Optional.empty();
    }

    /**
     * The address dialed for {@code address}: an IPv4-mapped or IPv4-compatible one is its IPv4
     * address (R14), the one the owner check judged; a dual-stack socket would reach the same place
     * for a mapped one, but only the IPv4 address is certain to, whatever the host's IPv6 set-up.
     */
    static InetAddress dialed(InetAddress address) {
        Ip ip = Ip.of(address);
        Ip judged = ip.judgedAs();
        return judged == ip ? address : judged.toInetAddress();
    }

    /**
     * The refusal of an address of this host on the gateway's port (R13); empty when there is none: that port is
     * reached over the door only, so a forward, a listed entry or a name that resolves here never
     * reaches it, whoever the owner check would find holding it.
     */
    private Optional<Verdict.Deny> gatewayPort(Ip ip, int port, boolean hostOwn) {
        if (gatewayPort == 0 || port != gatewayPort || !hostOwn) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Deny(
                DenyCode.GATEWAY_PORT,
                ip + " port " + port + " is the gateway's port (owner.gatewayPort), reached through the door only"));
    }

    /** The refusal of one address for the internet shape; empty when there is none. */
    private Optional<Verdict.Deny> internet(InetAddress address, Ip ip, OwnAddresses own) {
        Optional<String> special = special(ip);
        if (special.isPresent()) {
            return Optional.of(new Verdict.Deny(DenyCode.NOT_GLOBAL_UNICAST, special.get()));
        }
        Optional<Ip.Embedded> embedded = ip.embedded();
        if (own.contains(ip)
                || (embedded.isPresent() && own.contains(embedded.get().address()))) {
            return Optional.of(new Verdict.Deny(DenyCode.OWN_ADDRESS, ip + " is this host's own"));
        }
        return listed(address, ip);
    }

    /**
     * Why {@code address} is in the deny list (R2): it, or the IPv4 address it carries, is in a
     * block; empty when it is not. The one deny-list rule, for every address the relay dials: a
     * target's, and an upstream proxy's ({@link UpstreamRoute}).
     */
    public Optional<String> denyListed(InetAddress address) {
        return listed(address, Ip.of(address)).map(Verdict.Deny::detail);
    }

    /** The deny-list refusal of one address ({@code ip} is {@code address}); empty when there is none. */
    private Optional<Verdict.Deny> listed(InetAddress address, Ip ip) {
        Optional<Cidr> block = denyList.matchAsDialed(address);
        if (block.isPresent()) {
            return Optional.of(new Verdict.Deny(DenyCode.DENY_LISTED, ip + " is in " + block.get()));
        }
        Optional<Ip.Embedded> embedded = ip.embedded();
        if (embedded.isEmpty()) {
            return Optional.empty();
        }
        Ip.Embedded carried = embedded.get();
        return denyList.matchAsDialed(carried.address().toInetAddress())
                .map(in -> new Verdict.Deny(
                        DenyCode.DENY_LISTED,
                        ip + " carries " + carried.form() + " IPv4 " + carried.address() + ", in " + in));
    }

    /** Why {@code ip}, or the IPv4 address it carries, is special-purpose (R14); empty when it is global unicast. */
    private static Optional<String> special(Ip ip) {
        Optional<GlobalUnicast.Block> block = GlobalUnicast.special(ip);
        if (block.isPresent()) {
            return Optional.of(ip + " is in " + block.get());
        }
        Optional<Ip.Embedded> embedded = ip.embedded();
        if (embedded.isEmpty()) {
            return Optional.empty();
        }
        Ip.Embedded carried = embedded.get();
        return GlobalUnicast.special(carried.address())
                .map(in -> ip + " carries " + carried.form() + " IPv4 " + carried.address() + ", in " + in);
    }

    /**
     * Step 9: the owner check's answers, in the order of {@code ask.queries()}. A refusal carries
     * the evidence of the answer that refused; an allow carries the evidence of every answer.
     */
    public static Verdict afterOwner(Step.AskOwner ask, List<OwnerAnswer> answers) {
        if (answers.size() != ask.queries().size()) {
            return new Verdict.Deny(
                    DenyCode.OWNER_ERROR,
                    "the owner check gave " + answers.size() + " answers to "
                            + ask.queries().size() + " questions",
                    ask.allow().resolved(),
                    OwnerEvidence.NONE);
        }
        for (int i = 0; i < answers.size(); i++) {
            OwnerAnswer answer = answers.get(i);
            Optional<OwnerCode> refused = answer.code();
            if (refused.isPresent()) {
                OwnerQuery query = ask.queries().get(i);
                return new Verdict.Deny(
                        DenyCode.of(refused.get()),
                        "owner check of " + Literals.format(query.address()) + " port " + query.port() + ": "
                                + answer.detail(),
                        ask.allow().resolved(),
                        answer.evidence());
            }
        }
        return ask.allow().withOwner(merged(answers));
    }

    /** The evidence of several answers as one: every listener and process, the first container. */
    private static OwnerEvidence merged(List<OwnerAnswer> answers) {
        if (answers.size() == 1) {
            return answers.getFirst().evidence();
        }
        List<OwnerEvidence.Listener> listeners = new ArrayList<>();
        List<OwnerEvidence.Process> processes = new ArrayList<>();
        OwnerEvidence.Container container = null;
        for (OwnerAnswer answer : answers) {
            listeners.addAll(answer.evidence().listeners());
            processes.addAll(answer.evidence().processes());
            if (container == null) {
                container = answer.evidence().container();
            }
        }
        return new OwnerEvidence(listeners, processes, container);
    }

    private static Step deny(DenyCode code, String detail) {
        return new Step.Decided(new Verdict.Deny(code, detail));
    }
}
