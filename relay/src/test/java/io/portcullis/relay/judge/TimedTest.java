package io.portcullis.relay.judge;

import static org.junit.jupiter.api.Assertions.assertSame;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.relay.observe.Metrics;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The timed owner check. */
class TimedTest {

    /** Regression (issue 9, item 3): a lambda wrapper knew no Docker network, so none reached the check. */
    @Test
    void theTimedOwnerCheckKeepsTheDockerNetworks() {
        DockerNetworks networks = new DockerNetworks(List.of(DockerNetworks.Block.parse("172.17.0.0/16")));
        OwnerCheck check = new OwnerCheck() {
            @Override
            public CompletableFuture<OwnerAnswer> check(OwnerQuery query) {
                return CompletableFuture.completedFuture(
                        OwnerAnswer.deny(OwnerCode.DOCKER_DOWN, "down", OwnerEvidence.NONE));
            }

            @Override
            public DockerNetworks dockerNetworks() {
                return networks;
            }
        };
        assertSame(networks, Timed.ownerCheck(check, new Metrics().owner()).dockerNetworks());
    }
}
