package io.portcullis.it.owner;

import io.portcullis.it.world.Run;
import io.portcullis.it.world.Spawn;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.testing.Line;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** One connection to each forward of a spawn, from inside its namespace, and the decision line of each. */
final class ForwardProbe {
    private ForwardProbe() {}

    /**
     * Connects once to each forward, in order, from inside the spawn's namespace: curl for the
     * names in {@code http} (what it saw: the HTTP status, {@code 000} for a closed connection),
     * socat sending one byte for the others (its exit status).
     */
    static Map<String, String> connectEach(Spawn spawn, Map<String, Integer> ports, Set<String> http)
            throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder();
        ports.forEach((name, port) -> script.append(
                http.contains(name)
                        ? "r=$(curl -s -o /dev/null -w '%%{http_code}' --max-time 5 http://127.0.0.1:%d/); echo \"%s=$r\"\n"
                                .formatted(port, name)
                        : "printf x | timeout 5 socat -t 1 - TCP:127.0.0.1:%d >/dev/null 2>&1; echo \"%s=socat $?\"\n"
                                .formatted(port, name)));
        Run run = spawn.run(script.toString(), 120);
        if (run.exit() != 0) {
            throw new AssertionError("the spawn's script failed: " + run);
        }
        Map<String, String> saw = new LinkedHashMap<>();
        run.out()
                .lines()
                .map(line -> line.split("=", 2))
                .filter(kv -> kv.length == 2)
                .forEach(kv -> saw.put(kv[0], kv[1]));
        return saw;
    }

    /**
     * Closes the relay, so that tunnels still open (a listener that never answers nor closes)
     * end, then gives the decision line of each forward in {@code ports}, by name; fails after
     * 10 s without one.
     */
    static Map<String, Decision> decisionsByForward(Spawn spawn, Map<String, Integer> ports)
            throws InterruptedException {
        spawn.close();
        Map<String, String> names = new HashMap<>();
        ports.forEach((name, port) -> names.put("forward:" + port, name));
        Map<String, Decision> byName = new HashMap<>();
        while (byName.size() < ports.size()) {
            Decision decision = spawn.next();
            String name = names.get(Line.of(decision).target());
            if (name != null) {
                byName.put(name, decision);
            }
        }
        return byName;
    }
}
