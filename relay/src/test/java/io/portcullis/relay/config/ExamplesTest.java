package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The example files the docs point at are files the relay reads without a problem. */
class ExamplesTest {
    private static final Path EXAMPLES = Path.of("..", "docs", "examples");

    @Test
    void theExampleSpawnPolicyReads() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.read(EXAMPLES.resolve("spawn.json"));
        assertEquals("studio", spawn.id());
    }

    @Test
    void theExampleHostConfigurationReads() throws ConfigException {
        HostConfig host = HostConfigJson.read(EXAMPLES.resolve("host.json"));
        assertEquals(1000, host.owner().gatewayUid());
    }
}
