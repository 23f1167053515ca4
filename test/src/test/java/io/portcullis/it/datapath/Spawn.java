package io.portcullis.it.datapath;

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
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A relay in the test JVM (its decisions collected) with one spawn open, and the real entry run
 * in a spawn's namespace (loopback only) around a shell script, as a wall runs them.
 */
final class Spawn implements AutoCloseable {
    private final Relay relay;
    private final SpawnHandle handle;
    private final BlockingQueue<Decision> decisions;

    private Spawn(Relay relay, SpawnHandle handle, BlockingQueue<Decision> decisions) {
        this.relay = relay;
        this.handle = handle;
        this.decisions = decisions;
    }

    /** A relay with {@code hostJson} (the world's DNS is added), and the spawn of {@code spawnJson}. */
    static Spawn open(Path dir, String dns, String hostLimits, String spawnJson) throws IOException, ConfigException {
        String host = "{\"dns\": {\"servers\": [\"" + dns + "\"], \"timeoutMillis\": 2000}"
                + (hostLimits.isEmpty() ? "" : ", \"limits\": " + hostLimits) + "}";
        BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
        Relay relay = Relay.builder(HostConfigJson.parse("host.json", host))
                .directory(dir)
                .decisions(decisions::add)
                .start();
        try {
            return new Spawn(relay, relay.open(SpawnPolicyJson.parse("spawn.json", spawnJson)), decisions);
        } catch (IOException | ConfigException | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    SpawnHandle handle() {
        return handle;
    }

    /**
     * Runs {@code script} with {@code sh -c} under the entry, in a fresh namespace with loopback
     * only; the entry gets the spawn's proxy port and forwards.
     */
    Run run(String script, long timeoutSeconds) throws IOException, InterruptedException {
        return run(entryArgs(handle.proxyPort()), script, timeoutSeconds);
    }

    /** As {@link #run(String, long)}, with these entry arguments. */
    Run run(List<String> entryArgs, String script, long timeoutSeconds) throws IOException, InterruptedException {
        return Run.of(Portcullis.entryInSpawnNamespace(handle.socket(), entryArgs, List.of("sh", "-c", script)), "",
                timeoutSeconds);
    }

    /**
     * The entry's arguments for this spawn's forwards, with {@code proxyPort}; the readiness line
     * goes to standard error, so standard output is the script's alone.
     */
    List<String> entryArgs(int proxyPort) {
        List<String> args = new ArrayList<>(List.of("--ready-fd", "2", "--proxy-port", String.valueOf(proxyPort)));
        for (int port : handle.forwards()) {
            args.addAll(List.of("--forward", String.valueOf(port)));
        }
        return args;
    }

    /** The next decision line, waiting up to 10 s. */
    Decision next() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        if (decision == null) {
            throw new AssertionError("no decision line within 10 s");
        }
        return decision;
    }

    /** Every decision line written so far, after waiting {@code settleMillis} for late ones. */
    List<Decision> all(long settleMillis) throws InterruptedException {
        Thread.sleep(settleMillis);
        List<Decision> all = new ArrayList<>();
        decisions.drainTo(all);
        return all;
    }

    @Override
    public void close() {
        relay.close();
    }
}
