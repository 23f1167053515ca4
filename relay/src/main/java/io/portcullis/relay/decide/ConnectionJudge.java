package io.portcullis.relay.decide;

import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/**
 * Decides the requests of one connection: the relay's judge bound, once, to the connection's spawn
 * and configuration generation. The kinds ask it and know nothing of policies; a CONNECT and a
 * plain HTTP request on the proxy port, a forward and a named entry all go through it.
 */
@FunctionalInterface
public interface ConnectionJudge {

    CompletableFuture<Verdict> decide(Request request);
}
