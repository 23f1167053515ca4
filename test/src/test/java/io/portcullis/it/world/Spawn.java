package io.portcullis.it.world;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
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
public final class Spawn implements AutoCloseable {
    private final Relay relay;
    private final SpawnHandle handle;
    private final BlockingQueue<Decision> decisions;
    /** Whether closing this closes the relay too, or only its spawn. */
    private final boolean ownsRelay;

    private Spawn(Relay relay, SpawnHandle handle, BlockingQueue<Decision> decisions, boolean ownsRelay) {
        this.relay = relay;
        this.handle = handle;
        this.decisions = decisions;
        this.ownsRelay = ownsRelay;
    }

    /**
     * Another spawn of the same relay (a spawn socket takes one hand-over, so each run of the entry
     * needs a spawn of its own), whose lines come to the same queue; closing it closes that spawn only.
     */
    public Spawn another(String spawnJson) throws IOException, ConfigException {
        return new Spawn(relay, relay.open(SpawnPolicyJson.parse("spawn.json", spawnJson)), decisions, false);
    }

    /**
     * A relay whose host configuration names the DNS server {@code dns} and the limits
     * {@code hostLimits} (a JSON object, or empty for the defaults), and the spawn of
     * {@code spawnJson}.
     */
    public static Spawn open(Path dir, String dns, String hostLimits, String spawnJson)
            throws IOException, ConfigException {
        String host = "{\"dns\": {\"servers\": [\"" + dns + "\"], \"timeoutMillis\": 2000}"
                + (hostLimits.isEmpty() ? "" : ", \"limits\": " + hostLimits) + "}";
        return open(dir, HostConfigJson.parse("host.json", host), spawnJson);
    }

    /** A relay with the host configuration {@code hostJson} (a whole JSON object), and the spawn of {@code spawnJson}. */
    public static Spawn withHost(Path dir, String hostJson, String spawnJson) throws IOException, ConfigException {
        return open(dir, HostConfigJson.parse("host.json", hostJson), spawnJson);
    }

    /** A relay with the host configuration in {@code hostFile}, and the spawn of {@code spawnJson}. */
    public static Spawn open(Path dir, Path hostFile, String spawnJson) throws IOException, ConfigException {
        return open(dir, HostConfigJson.read(hostFile), spawnJson);
    }

    private static Spawn open(Path dir, HostConfig host, String spawnJson) throws IOException, ConfigException {
        BlockingQueue<Decision> decisions = new LinkedBlockingQueue<>();
        Relay relay =
                Relay.builder(host).directory(dir).decisions(decisions::add).start();
        try {
            return new Spawn(relay, relay.open(SpawnPolicyJson.parse("spawn.json", spawnJson)), decisions, true);
        } catch (IOException | ConfigException | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    /** The relay, e.g. to reload its host configuration. */
    public Relay relay() {
        return relay;
    }

    public SpawnHandle handle() {
        return handle;
    }

    /** The relay's metrics in the Prometheus text format. */
    public String metricsText() {
        return relay.metricsText();
    }

    /**
     * Runs {@code script} with {@code sh -c} under the entry, in a fresh namespace with loopback
     * only; the entry gets the spawn's proxy port and forwards.
     */
    public Run run(String script, long timeoutSeconds) throws IOException, InterruptedException {
        return run(entryArgs(handle.proxyPort()), script, timeoutSeconds);
    }

    /** As {@link #run(String, long)}, with these entry arguments. */
    public Run run(List<String> entryArgs, String script, long timeoutSeconds)
            throws IOException, InterruptedException {
        return Run.of(
                Portcullis.entryInSpawnNamespace(
                        handle.socket(), handle.handoffKey(), entryArgs, List.of("sh", "-c", script)),
                "",
                timeoutSeconds);
    }

    /**
     * The entry's arguments for this spawn's forwards, named entries and DNS socket, with
     * {@code proxyPort}; the readiness line goes to standard error, so standard output is the
     * script's alone.
     */
    public List<String> entryArgs(int proxyPort) {
        List<String> args = new ArrayList<>(List.of("--ready-fd", "2"));
        args.addAll(entrySockets(proxyPort));
        return args;
    }

    /** The entry's arguments for this spawn's sockets alone: the proxy port, forwards, named entries, DNS. */
    public List<String> entrySockets(int proxyPort) {
        List<String> args = new ArrayList<>(List.of("--proxy-port", String.valueOf(proxyPort)));
        for (int port : handle.forwards()) {
            args.addAll(List.of("--forward", String.valueOf(port)));
        }
        for (SpawnPolicy.Named named : handle.named()) {
            args.addAll(List.of("--named", Handoff.text(named.address())));
        }
        args.add("--dns");
        return args;
    }

    /** The next decision line, waiting up to 10 s. */
    public Decision next() throws InterruptedException {
        Decision decision = decisions.poll(10, TimeUnit.SECONDS);
        if (decision == null) {
            throw new AssertionError("no decision line within 10 s");
        }
        return decision;
    }

    /** Every decision line written so far, after waiting {@code settleMillis} for late ones. */
    public List<Decision> all(long settleMillis) throws InterruptedException {
        Thread.sleep(settleMillis);
        List<Decision> all = new ArrayList<>();
        decisions.drainTo(all);
        return all;
    }

    @Override
    public void close() {
        if (ownsRelay) {
            relay.close();
        } else {
            handle.close();
        }
    }
}
