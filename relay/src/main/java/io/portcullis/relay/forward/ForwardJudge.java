package io.portcullis.relay.forward;

import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/** Judges a forward of one spawn: its loopback entry on {@code port}, with the owner check (SPEC R11). */
@FunctionalInterface
public interface ForwardJudge {

    CompletableFuture<Verdict> judge(int port);
}
