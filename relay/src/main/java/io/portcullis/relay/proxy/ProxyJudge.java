package io.portcullis.relay.proxy;

import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/** Judges one request of a proxy connection (a CONNECT or a plain HTTP request) for one spawn. */
@FunctionalInterface
public interface ProxyJudge {

    CompletableFuture<Verdict> judge(Request request);
}
