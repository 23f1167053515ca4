package io.portcullis.launch;

import io.portcullis.log.ControlEscapes;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The one readable line that {@code portcullis run} prints on standard error for a refused or
 * failed connection (SPEC R43), e.g. {@code portcullis: refused CONNECT nas.lan:22: not-listed (no
 * listed entry matches and the internet shape does not apply)}. For the owner check's codes the
 * parenthesis also says what the check saw and what to change. Pure: built from the decision
 * record alone, which the JSON line is built from too. What the client or a process chose (a target,
 * a method) reaches the person's terminal escaped as the JSON log escapes it ({@link
 * ControlEscapes}): C0, DEL, C1, U+2028 and U+2029 as {@code \\uXXXX}, so no control is obeyed.
 *
 * @param gatewayUid the gateway's uid the run's owner check uses; -1 for none
 * @param origin where that uid (or its absence) comes from, e.g. {@code owner.gatewayUid in --host}
 */
public record RefusalLine(int gatewayUid, String origin) {
    public static final String HOST_FILE = "owner.gatewayUid in --host";
    public static final String INVOKER = "the uid that runs portcullis";
    public static final String SUDO = "SUDO_UID, the uid that ran sudo";
    public static final String ROOT = "root is never taken as the gateway's user";

    public RefusalLine {
        Objects.requireNonNull(origin, "origin");
    }

    private static final String FORWARD = "forward:";

    /** The line for {@code decision}; empty for an allowed one and for a client that left before an answer. */
    public Optional<String> of(Decision decision) {
        Optional<DenyCode> settled = decision.code();
        if (decision.allowed() || settled.isEmpty() || settled.get() == DenyCode.CLIENT_CLOSED) {
            return Optional.empty();
        }
        DenyCode code = settled.get();
        String outcome = decision.verdict() == Decision.Result.DENY ? "refused" : "failed";
        String why = code.sentence() + whatToChange(code, decision);
        return Optional.of(ControlEscapes.escaped(
                "portcullis: " + outcome + " " + what(decision) + ": " + code.code() + " (" + why + ")"));
    }

    /** The connection as the person asked for it: its kind and target. */
    private static String what(Decision decision) {
        String target = decision.target().orElse("(no target read)");
        return switch (decision.kind()) {
            case "forward" -> "forward " + forwarded(target, decision.resolved());
            case "dns" -> "DNS " + target;
            case "named" -> "tcp " + target;
            case "door" -> target;
            case "proxy" -> decision.method().orElse("proxy") + " " + target;
            default -> decision.kind() + " " + target;
        };
    }

    /** A forward's record names its port ({@code forward:5000}); the person named the address too. */
    private static String forwarded(String target, List<InetAddress> resolved) {
        if (!target.startsWith(FORWARD) || resolved.isEmpty()) {
            return target;
        }
        try {
            int port = Integer.parseInt(target.substring(FORWARD.length()));
            return Target.text(new InetSocketAddress(resolved.getFirst(), port));
        } catch (IllegalArgumentException e) {
            return target;
        }
    }

    /** For the owner check's refusals: what it saw and, where the person can change it, how. */
    private String whatToChange(DenyCode code, Decision decision) {
        OwnerEvidence evidence = decision.owner().orElse(OwnerEvidence.NONE);
        return switch (code) {
            case OWNER_OTHER_USER -> otherUser(evidence);
            case OWNER_ROOT ->
                "; a root service is reached only as a port that a container publishes: run it as "
                        + (gatewayUid >= 0
                                ? "uid " + gatewayUid + ", the gateway's user"
                                : "your own user, and portcullis as that user (or with sudo)");
            case OWNER_DEFAULT_USER ->
                "; the entry's source is default: source owner in the spawn policy reaches the gateway user's service";
            case OWNER_CHECKOUT -> "; " + holders(evidence) + " runs under one of the host file's owner.roots";
            case OWNER_GATEWAY -> "; " + holders(evidence) + " matches one of the host file's owner.signatures";
            case OWNER_WALL -> "; " + holders(evidence) + " is part of the sandbox or the relay itself";
            case OWNER_UNMAPPED -> "; no process this relay can see holds it (docs/owner-check.md, \"Known limits\")";
            case OWNER_DOCKER_DOWN -> "; Docker is needed only for containers' ports and addresses";
            default -> "";
        };
    }

    private String otherUser(OwnerEvidence evidence) {
        Optional<Integer> other = evidence.listeners().stream()
                .map(OwnerEvidence.Listener::uid)
                .filter(uid -> uid != gatewayUid)
                .findFirst();
        String whose = other.map(uid -> ": the socket is uid " + uid + "'s").orElse("");
        String gateway = gatewayUid < 0
                ? "there is no gateway uid (" + origin + ")"
                : "the gateway's uid is " + gatewayUid + " (" + origin + ")";
        String as = other.map(uid -> "uid " + uid).orElse("that user");
        String field = other.map(uid -> "owner.gatewayUid " + uid).orElse("owner.gatewayUid");
        return whose + ", and " + gateway + "; to reach that user's services, run portcullis as " + as
                + " (or with sudo from it), or set " + field + " in the host file (--host)";
    }

    private static String holders(OwnerEvidence evidence) {
        return evidence.processes().isEmpty()
                ? "its process"
                : "process " + evidence.processes().getFirst().pid();
    }
}
