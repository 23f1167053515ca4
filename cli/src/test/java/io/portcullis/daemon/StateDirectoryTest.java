package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The spawns' state files: mode 0600, whole or absent, read back as written, and what is no state file. */
class StateDirectoryTest {
    private Path root;
    private StateDirectory states;

    @BeforeEach
    void make() throws IOException {
        root = Files.createTempDirectory("state-");
        states = new StateDirectory(root);
    }

    @AfterEach
    void remove() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    static SpawnState state(String id) throws IOException {
        JsonNode policy = SpawnJson.JSON.readTree("{\"id\":\"" + id + "\",\"network\":\"internet\"}");
        return new SpawnState(
                policy,
                4026532871L,
                4099L,
                List.of(
                        new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 39080)),
                        new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(Handoff.IPV6_LOOPBACK, 39080)),
                        new Handoff.Socket(Handoff.Kind.DNS, new InetSocketAddress(Handoff.IPV4_LOOPBACK, 53))));
    }

    @Test
    void aStateIsWrittenForTheDaemonAloneAndReadsBackAsWritten() throws IOException {
        states.write("bot-1", state("bot-1"));
        states.write("bot-0", state("bot-0"));

        List<StateDirectory.Entry> read = states.read();

        assertEquals(
                List.of("bot-0", "bot-1"),
                read.stream().map(StateDirectory.Entry::id).toList());
        assertEquals(state("bot-1"), SpawnState.parse(read.get(1).bytes()));
        assertEquals(
                "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("bot-1.json"))));
        assertEquals(
                List.of("bot-1/proxy/127.0.0.1/39080", "bot-1/proxy/0-0-0-0-0-0-0-1/39080", "bot-1/dns/127.0.0.1/53"),
                state("bot-1").names("bot-1").stream().map(StoreName::text).toList());
    }

    @Test
    void writingAgainReplacesTheFileWholeAndRemovingLeavesNothing() throws IOException {
        states.write("bot-1", state("bot-1"));
        states.write("bot-1", state("bot-2"));

        try (Stream<Path> files = Files.list(root)) {
            assertEquals(
                    List.of("bot-1.json"),
                    files.map(file -> file.getFileName().toString()).toList());
        }
        assertEquals(
                "bot-2",
                SpawnState.parse(states.read().getFirst().bytes())
                        .policy()
                        .get("id")
                        .asText());

        states.remove("bot-1");
        states.remove("bot-1");
        assertTrue(states.read().isEmpty());
    }

    @Test
    void aTemporaryFileACrashLeftIsRemovedAndNeverRead() throws IOException {
        Files.writeString(root.resolve(".bot-1.json.tmp"), "{\"format\":1,\"pol");

        assertTrue(states.read().isEmpty());
        assertTrue(Files.notExists(root.resolve(".bot-1.json.tmp")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"format\":1,\"pol|not JSON (Unexpected end-of-input in field name)",
                "[]|not a JSON object",
                "{\"format\":2}|format: 2 (expected: 1)",
                "{\"format\":1,\"policy\":3}|policy: 3 (expected: a spawn policy)",
                "{\"format\":1,\"policy\":{},\"namespace\":{\"inode\":1}}|namespace: {\"inode\":1} (expected: {\"inode\": N, \"cookie\": N})",
                "{\"format\":1,\"policy\":{},\"namespace\":{\"inode\":1,\"cookie\":2},\"sockets\":[]}|sockets: [] (expected: a non-empty array)",
                "{\"format\":1,\"policy\":{},\"namespace\":{\"inode\":1,\"cookie\":2},\"sockets\":[{\"kind\":\"relay\",\"address\":\"127.0.0.1\",\"port\":1}]}|sockets: {\"kind\":\"relay\",\"address\":\"127.0.0.1\",\"port\":1} (expected: a kind of socket)",
                "{\"format\":1,\"policy\":{},\"namespace\":{\"inode\":1,\"cookie\":2},\"sockets\":[{\"kind\":\"dns\",\"address\":\"localhost\",\"port\":53}]}|sockets: {\"kind\":\"dns\",\"address\":\"localhost\",\"port\":53} (expected: an address literal)",
                "{\"format\":1,\"policy\":{},\"namespace\":{\"inode\":1,\"cookie\":2},\"sockets\":[{\"kind\":\"dns\",\"address\":\"127.0.0.1\",\"port\":0}]}|sockets: {\"kind\":\"dns\",\"address\":\"127.0.0.1\",\"port\":0} (expected: a port 1-65535)",
            })
    void aFileThatIsNoStateSaysWhatIsWrong(String text, String message) {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> SpawnState.parse(text.getBytes(StandardCharsets.UTF_8)));
        assertEquals(message, refused.getMessage());
    }
}
