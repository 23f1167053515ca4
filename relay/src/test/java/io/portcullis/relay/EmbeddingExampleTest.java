package io.portcullis.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of docs/embedding.md is this file's {@link #example} body, so it compiles and runs. */
class EmbeddingExampleTest {
    private static final String START = "// example:start";
    private static final String END = "// example:end";

    @TempDir
    Path dir;

    private static void example(Path hostFile, Path spawnFile) throws Exception {
        // example:start
        HostConfig host = HostConfigJson.read(hostFile); // every problem at once, or a checked config
        SpawnPolicy policy = SpawnPolicyJson.read(spawnFile);
        try (Relay relay = Relay.start(host)) { // event loops, DNS, owner check, decision log
            SpawnHandle spawn = relay.open(policy); // a fresh 0700 directory with a 0600 socket
            System.out.println(spawn.socket() + " proxy port " + spawn.proxyPort());
            // ... start the entry in the spawn's namespace with spawn.socket() and spawn.proxyPort(),
            // and spawn.handoffKey() in its PORTCULLIS_HANDOFF_KEY (the environment, never argv) ...
            relay.reload(HostConfigJson.read(hostFile)); // new connections use the file as it is now
            System.out.print(relay.metricsText()); // Prometheus text
            spawn.close(); // its connections end, its directory goes
        } // or relay.close(): every spawn's directory goes
        // example:end
    }

    @Test
    void theExampleRunsAndCleansUp() throws Exception {
        Path host = Files.writeString(dir.resolve("host.json"), "{}");
        Path spawn = Files.writeString(dir.resolve("spawn.json"), "{\"id\": \"embedded\"}");

        example(host, spawn);

        try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertFalse(left.anyMatch(path -> path.getFileName().toString().startsWith("spawn-embedded-")));
        }
    }

    @Test
    void theDocumentShowsTheExampleAsItIsHere() throws Exception {
        List<String> source =
                Files.readAllLines(Path.of("src/test/java/io/portcullis/relay/EmbeddingExampleTest.java"));
        List<String> code = source.subList(indexOf(source, START) + 1, indexOf(source, END));
        String doc = Files.readString(Path.of("../docs/embedding.md"), StandardCharsets.UTF_8);

        String expected = String.join(
                "\n",
                code.stream()
                        .map(line -> line.length() >= 8 ? line.substring(8) : line.strip())
                        .toList());
        assertTrue(doc.contains(expected), "docs/embedding.md shows:\n" + expected);
        assertEquals(1, doc.split("```java", -1).length - 1);
    }

    private static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker) && !lines.get(i).contains("\"")) {
                return i;
            }
        }
        throw new AssertionError(marker + " not found");
    }
}
