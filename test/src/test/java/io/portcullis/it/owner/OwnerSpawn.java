package io.portcullis.it.owner;

import io.portcullis.it.world.Portcullis;
import io.portcullis.it.world.Run;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A relay in the test JVM built with every default but its decision sink (so its owner check is
 * the real one), one spawn open, and the real entry in a spawn's namespace connecting once to
 * each forward.
 */
final class OwnerSpawn implements AutoCloseable {
    private final Relay relay;
    private final SpawnHandle handle;
    private final BlockingQueue<Decision> decisions;

    private OwnerSpawn(Relay relay, SpawnHandle handle, BlockingQueue<Decision> decisions) {
        this.relay = relay;
        this.handle = handle;
        this.decisions = decisions;
    }

    static OwnerSpawn open(Path dir, Path hostFile, String spawnJson) throws IOException, ConfigException {
        BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
        Relay relay = Relay.builder(HostConfigJson.read(hostFile)).directory(dir).decisions(decisions::add).start();
        try {
            return new OwnerSpawn(relay, relay.open(SpawnPolicyJson.parse("spawn.json", spawnJson)), decisions);
        } catch (IOException | ConfigException | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    /**
     * Connects once to each forward, in order, from inside the spawn's namespace: curl for the
     * names in {@code http} (what it saw: the HTTP status, {@code 000} for a closed connection),
     * socat sending one byte for the others (its exit status).
     */
    Map<String, String> connectEach(Map<String, Integer> ports, Set<String> http) throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder();
        ports.forEach((name, port) -> script.append(http.contains(name)
                ? "r=$(curl -s -o /dev/null -w '%%{http_code}' --max-time 5 http://127.0.0.1:%d/); echo \"%s=$r\"\n"
                        .formatted(port, name)
                : "printf x | timeout 5 socat -t 1 - TCP:127.0.0.1:%d >/dev/null 2>&1; echo \"%s=socat $?\"\n"
                        .formatted(port, name)));
        List<String> args = new ArrayList<>(List.of("--ready-fd", "2", "--proxy-port", String.valueOf(handle.proxyPort())));
        handle.forwards().forEach(port -> args.addAll(List.of("--forward", String.valueOf(port))));
        Run run = Run.of(Portcullis.entryInSpawnNamespace(handle.socket(), args, List.of("sh", "-c", script.toString())), "",
                120);
        if (run.exit() != 0) {
            throw new AssertionError("the spawn's script failed: " + run);
        }
        Map<String, String> saw = new LinkedHashMap<>();
        run.out().lines().map(line -> line.split("=", 2)).filter(kv -> kv.length == 2).forEach(kv -> saw.put(kv[0], kv[1]));
        return saw;
    }

    /**
     * Closes the relay, so that tunnels still open (a listener that never answers nor closes)
     * end, then gives the decision line of each forward in {@code ports}, by name; fails after
     * 10 s without one.
     */
    Map<String, Decision> decisionsByForward(Map<String, Integer> ports) throws InterruptedException {
        relay.close();
        Map<String, String> names = new HashMap<>();
        ports.forEach((name, port) -> names.put("forward:" + port, name));
        Map<String, Decision> byName = new HashMap<>();
        while (byName.size() < ports.size()) {
            Decision decision = decisions.poll(10, TimeUnit.SECONDS);
            if (decision == null) {
                throw new AssertionError("decision lines for " + byName.keySet() + " only, expected " + ports.keySet());
            }
            String name = names.get(decision.target());
            if (name != null) {
                byName.put(name, decision);
            }
        }
        return byName;
    }

    @Override
    public void close() {
        relay.close();
    }
}
