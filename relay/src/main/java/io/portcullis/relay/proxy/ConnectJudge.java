package io.portcullis.relay.proxy;

import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/** Judges the authority of a CONNECT request ({@code host:port}, as the client sent it) for one spawn. */
@FunctionalInterface
public interface ConnectJudge {

    CompletableFuture<Verdict> judge(String authority);
}
