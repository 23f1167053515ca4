package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any text is a spawn policy or a list of problems; nothing else escapes the loader. */
class SpawnPolicyJsonFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(String json) {
        if (json == null) {
            return;
        }
        try {
            SpawnPolicyJson.parse("fuzz", json).effectiveProxyPort();
        } catch (ConfigException e) {
            assertFalse(e.problems().isEmpty());
        }
    }
}
