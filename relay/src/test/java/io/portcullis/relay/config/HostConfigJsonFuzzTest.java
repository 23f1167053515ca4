package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any text is a host configuration or a list of problems; nothing else escapes the loader. */
class HostConfigJsonFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(String json) {
        if (json == null) {
            return;
        }
        try {
            HostConfigJson.parse("fuzz", json);
        } catch (ConfigException e) {
            assertFalse(e.problems().isEmpty());
        }
    }
}
