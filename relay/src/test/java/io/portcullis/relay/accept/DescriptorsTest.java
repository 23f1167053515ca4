package io.portcullis.relay.accept;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.policy.HostConfig;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DescriptorsTest {

    private static HostConfig.Limits relayConnections(int relay) {
        Duration second = Duration.ofSeconds(1);
        return new HostConfig.Limits(8192, second, second, second, 512, relay, 1024);
    }

    @ParameterizedTest(name = "limit {0} -> {1} connections")
    @CsvSource({
        "1024, 224",
        "1048576, 524000",
        "33344, 16384",
        "576, 1",
        "512, 1",
        "100, 1",
        "9223372036854775807, 2147483647"
    })
    void twoDescriptorsPerConnectionAfterTheReserveAndTheListeners(long limit, int connections) {
        assertEquals(connections, new Descriptors(limit).connections());
    }

    @ParameterizedTest(name = "limit {0}, relayConnections {1} -> warns {2}")
    @CsvSource({
        "1024, 16384, true",
        "33344, 16384, false",
        "33343, 16384, true",
        "33280, 16384, true",
        "1048576, 16384, false"
    })
    void aWarningWhenTheBudgetNeedsMoreDescriptors(long limit, int relay, boolean warns) {
        Optional<String> warning = new Descriptors(limit).shortfall(relayConnections(relay));

        assertEquals(warns, warning.isPresent(), warning.toString());
        if (warns) {
            assertTrue(warning.get().startsWith("the descriptor limit " + limit + " lets"), warning.get());
            assertTrue(warning.get().lines().count() == 1, warning.get());
            assertTrue(
                    warning.get().contains("LimitNOFILE=" + (2L * relay + Descriptors.RESERVE + Descriptors.LISTENERS)),
                    warning.get());
        }
    }

    /**
     * Issue 25: run's one spawn was warned about the relay's default budget (16384), which it never
     * uses; only its own budget counts there.
     */
    @ParameterizedTest(name = "limit {0}, spawns {1} -> warns {2}")
    @CsvSource({
        "20000, 0, true",
        "20000, 1, false",
        "4096,  1, false",
        "1600,  1, false",
        "1599,  1, true",
        "1024,  1, true",
        "20000, 40, true",
        "20000, 18, false",
        "20000, 19, true"
    })
    void aRelayThatKnowsItsSpawnsIsJudgedOnTheirBudgets(long limit, int spawns, boolean warns) {
        Optional<String> warning = new Descriptors(limit).shortfall(relayConnections(16384), spawns);

        assertEquals(warns, warning.isPresent(), warning.toString());
        if (warns && spawns == 1) {
            assertTrue(warning.get().contains("fewer than this spawn's limits.spawnConnections 512"), warning.get());
            assertTrue(warning.get().contains("ulimit -Hn 1600"), warning.get());
        }
    }
}
