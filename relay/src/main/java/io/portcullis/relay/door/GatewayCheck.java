package io.portcullis.relay.door;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.checks.Checks;
import io.portcullis.relay.decide.Times;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Verdict;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Whether the gateway's port on 127.0.0.1 is held by the gateway (SPEC R13): every listener that
 * would answer a connection to it is a socket of the gateway's uid, held by at least one process
 * of that uid; else {@code door-gateway}, so that a door never hands its request (and whatever the
 * gateway trusts about door traffic) to another user's process that took the port while the
 * gateway was down. It reads the owner check's evidence, not its verdict: the verdict answers
 * "may an add-on reach this service", which for the gateway itself is always no ({@code owner-gateway}).
 *
 * @param uid the gateway's uid ({@code owner.gatewayUid}); -1 when none is configured, and then
 *     every door request is refused
 * @param port the gateway's real port ({@code owner.gatewayPort}); 0 when none is configured, and
 *     then every door request fails with {@code connect-failed}, nothing asked or dialed
 */
record GatewayCheck(OwnerCheck owner, int uid, int port) {
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    GatewayCheck {
        Objects.requireNonNull(owner, "owner");
        Checks.portOrNone("port", port);
    }

    /**
     * The verdict for a door request of {@code spawn} that matched a route ({@code detail}), with
     * the owner check's time noted in {@code times}.
     */
    CompletableFuture<Verdict> verdict(String spawn, String detail, Times times) {
        if (port == 0) {
            return CompletableFuture.completedFuture(
                    new Verdict.Deny(DenyCode.CONNECT_FAILED, "no owner.gatewayPort in the host configuration"));
        }
        if (uid < 0) {
            return CompletableFuture.completedFuture(new Verdict.Deny(
                    DenyCode.DOOR_GATEWAY, "no owner.gatewayUid in the host configuration", List.of()));
        }
        long started = System.nanoTime();
        CompletableFuture<OwnerAnswer> asked;
        try {
            asked = owner.check(new OwnerQuery(spawn, OwnerQuery.Source.OWNER, LOOPBACK, port));
        } catch (RuntimeException e) {
            asked = CompletableFuture.failedFuture(e);
        }
        return asked.handle((answer, error) -> {
            times.ownerSince(started);
            return error != null
                    ? new Verdict.Deny(DenyCode.DOOR_GATEWAY, "the owner check failed: " + error, List.of(LOOPBACK))
                    : judge(answer.evidence(), detail);
        });
    }

    private Verdict judge(OwnerEvidence evidence, String detail) {
        Optional<String> refusal = refusal(evidence, uid, port);
        return refusal.isPresent()
                ? new Verdict.Deny(DenyCode.DOOR_GATEWAY, refusal.get(), List.of(LOOPBACK), evidence)
                : new Verdict.Allow(List.of(new InetSocketAddress(LOOPBACK, port)), List.of(LOOPBACK), detail)
                        .withOwner(evidence);
    }

    /** Why {@code evidence} does not show the gateway's uid holding the port; empty when it does. Pure. */
    static Optional<String> refusal(OwnerEvidence evidence, int uid, int port) {
        if (evidence.listeners().isEmpty()) {
            return Optional.of("nothing listens on 127.0.0.1 port " + port);
        }
        for (OwnerEvidence.Listener listener : evidence.listeners()) {
            if (listener.uid() != uid) {
                return Optional.of("the gateway port is held by uid " + listener.uid() + ", not the gateway's " + uid);
            }
        }
        if (evidence.processes().isEmpty()) {
            return Optional.of("no process of the gateway's uid " + uid + " holds the gateway port");
        }
        for (OwnerEvidence.Process process : evidence.processes()) {
            if (process.uid() != uid) {
                return Optional.of("process " + process.pid() + " of uid " + process.uid() + " holds the gateway port");
            }
        }
        return Optional.empty();
    }
}
