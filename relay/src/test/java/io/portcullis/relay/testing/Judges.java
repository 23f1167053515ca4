package io.portcullis.relay.testing;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Judges for a kind's tests: a spawn's judge that answers as a function of the request alone. */
public final class Judges {
    private static final SpawnPolicy POLICY = policy();

    private Judges() {}

    private static SpawnPolicy policy() {
        try {
            return SpawnPolicyJson.parse("test", "{\"id\": \"studio\"}");
        } catch (ConfigException e) {
            throw new AssertionError(e);
        }
    }

    /** A spawn's judge (of generation 1) that answers each request with {@code answer}. */
    public static SpawnJudge of(Function<Request, CompletableFuture<Verdict>> answer) {
        return new SpawnJudge((spawn, request) -> answer.apply(request), POLICY, 1, 1);
    }
}
