package io.portcullis.it.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.owner.testing.PythonListener;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The gateway's port is reached over the door only (SPEC R13, issue 26): with a host file like the
 * example one (a gateway uid and port, no signature, no root), a forward to the gateway's port went
 * to the owner check, which took the gateway's process for the add-on's own service of the
 * gateway's user and allowed it. A second port held by the same process's uid is the control: the
 * owner check still allows that one, so the refusal is the rule's, not the owner check's.
 */
class GatewayPortEndToEndTest {
    private static final int GATEWAY_UID = 4101;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aForwardAndCheckToTheGatewayPortAreRefusedWhoeverHoldsIt() throws Exception {
        Path dir = Files.createTempDirectory("portcullis-gateway-port-");
        Path elsewhere = PythonListener.openFolder("portcullis-gateway-port-cwd-");
        try (PythonListener gateway = PythonListener.v4("127.0.0.1")
                        .uid(GATEWAY_UID)
                        .cwd(elsewhere)
                        .start();
                PythonListener service = PythonListener.v4("127.0.0.1")
                        .uid(GATEWAY_UID)
                        .cwd(elsewhere)
                        .start()) {
            Path host = dir.resolve("host.json");
            Files.writeString(host, """
                    {"owner": {"gatewayUid": %d, "gatewayPort": %d, "docker": "unix://%s", "cacheMillis": 0}}""".formatted(GATEWAY_UID, gateway.port(), dir.resolve("no-docker.sock")));
            String policy = """
                    {"id": "studio", "network": "listed", "hosts": [
                      {"target": "127.0.0.1:%d", "scheme": "tcp"},
                      {"target": "127.0.0.1:%d", "scheme": "tcp"}]}""".formatted(gateway.port(), service.port());
            Path spawnFile = dir.resolve("spawn.json");
            Files.writeString(spawnFile, policy);

            Run check = Portcullis.run(
                    List.of(
                            "check",
                            "--spawn",
                            spawnFile.toString(),
                            "--host",
                            host.toString(),
                            "127.0.0.1:" + gateway.port(),
                            "127.0.0.1:" + service.port()),
                    "");
            assertEquals(1, check.exit(), check.toString());
            List<JsonNode> lines = new ArrayList<>();
            for (String line : check.out().lines().toList()) {
                lines.add(JSON.readTree(line));
            }
            assertEquals("gateway-port", lines.get(0).get("code").asText(), check.toString());
            assertEquals("allow", lines.get(1).get("verdict").asText(), check.toString());

            Map<String, Integer> ports = Map.of("gateway", gateway.port(), "service", service.port());
            Map<String, Decision> decisions;
            try (Spawn spawn = Spawn.open(dir, host, policy)) {
                ForwardProbe.connectEach(spawn, ports, Set.of());
                decisions = ForwardProbe.decisionsByForward(spawn, ports);
            }
            Decision refused = decisions.get("gateway");
            assertEquals("gateway-port", Line.of(refused).code(), refused.toString());
            assertNull(Line.of(refused).dialed(), refused.toString());
            Decision allowed = decisions.get("service");
            assertEquals("allow", Line.of(allowed).verdict(), allowed.toString());
            assertEquals("127.0.0.1:" + service.port(), Line.of(allowed).dialed());
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
            Files.deleteIfExists(elsewhere);
        }
    }
}
