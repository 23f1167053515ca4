package io.portcullis.bench.relay;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * BENCHMARK ONLY, TEMPORARY: the product's relay engine for one spawn, with an owner check that
 * allows every target on this host. It exists because the benchmark's origin listens on
 * 127.0.0.1, which the product refuses ({@code owner-error}) until the owner check is wired in;
 * with the owner check wired, the benchmark uses {@code portcullis relay} and this class goes.
 * Everything else (policy, DNS, dialing, copying, the decision log) is the product's.
 *
 * <p>Usage: {@code OwnerBypassRelay SPAWN.json HOST.json PARENT_DIR}; prints the ready line of
 * {@code portcullis relay}, runs until SIGTERM or SIGINT, then removes the spawn's directory.
 */
public final class OwnerBypassRelay {
    private static final OwnerCheck ALLOW_ALL_FOR_BENCHMARK = query -> CompletableFuture.completedFuture(
            OwnerAnswer.allow("benchmark only: the owner check is bypassed", OwnerEvidence.NONE));

    private OwnerBypassRelay() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: OwnerBypassRelay SPAWN.json HOST.json PARENT_DIR");
            System.exit(2);
        }
        Relay relay;
        SpawnHandle spawn;
        try {
            relay = Relay.builder(HostConfigJson.read(Path.of(args[1])))
                    .directory(Path.of(args[2]))
                    .ownerCheck(ALLOW_ALL_FOR_BENCHMARK)
                    .threads(Integer.getInteger("portcullis.threads", Runtime.getRuntime().availableProcessors()))
                    .start();
            spawn = relay.open(SpawnPolicyJson.read(Path.of(args[0])));
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            stopped.countDown();
        }));
        System.out.println("{\"socket\":\"" + spawn.socket() + "\",\"proxyPort\":" + spawn.proxyPort()
                + ",\"ownerCheck\":\"BYPASSED FOR BENCHMARK\"}");
        System.out.flush();
        stopped.await();
    }
}
