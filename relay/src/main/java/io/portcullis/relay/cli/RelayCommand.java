package io.portcullis.relay.cli;

import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.daemon.SpawnJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code portcullis relay}: one spawn on its own relay, until the wall's lifeline ends (SPEC R5). */
@Command(
        name = "relay",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the relay of one spawn until the wall's lifeline ends.",
            "",
            "Opens a fresh directory (0700) holding a unix socket (0600) for the spawn's entry, then prints one JSON "
                    + "line when it listens:",
            "  {\"socket\", \"proxyPort\", \"forwards\", \"door\", \"tokenFile\"}",
            "It runs until its standard input closes (the wall's lifeline), SIGTERM or SIGINT, then removes the "
                    + "directory. One JSON decision line per connection goes to standard error or the host's log.file.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:stopped cleanly", "1:the relay failed", "2:usage or configuration error"})
final class RelayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @ParentCommand
    Main main;

    @Mixin
    PolicyFiles files;

    @Option(
            names = "--dir",
            paramLabel = "PARENT",
            description = "Where the spawn's directory is made; default: the system's temporary directory.")
    Path parent;

    @Option(
            names = "--metrics-file",
            paramLabel = "FILE",
            description =
                    "Where the relay's metrics (Prometheus text) are written, every --metrics-every seconds and at exit.")
    Path metricsFile;

    @Option(
            names = "--metrics-every",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How often the metrics file is rewritten; default: ${DEFAULT-VALUE}.")
    int metricsEvery;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        List<String> problems = new ArrayList<>();
        service.check(problems);
        SpawnPolicy spawn = files.spawn(problems);
        HostConfig host = files.host(problems);
        ConfigFiles.checkParent(parent, problems);
        if (metricsEvery < 1) {
            problems.add("--metrics-every: " + metricsEvery + " (expected: >= 1)");
        }
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        Relay.Builder builder = ConfigFiles.relay(host, parent);
        Relay relay;
        try {
            relay = builder.start();
        } catch (IOException e) {
            err.println("portcullis relay: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        MetricsFile metrics = metricsFile == null
                ? null
                : new MetricsFile(metricsFile, relay::metricsText, Duration.ofSeconds(metricsEvery));
        Thread stopOnSignal = new Thread(
                () -> {
                    stop(relay, metrics, err);
                    // A signal is a clean stop for the wall: exit 0 once the directory is gone.
                    Runtime.getRuntime().halt(0);
                },
                "relay-stop");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        if (!Hangup.onHangup(relay::reopenLog)) {
            err.println("portcullis relay: SIGHUP cannot be handled by this JVM; the decision log is not reopened");
            err.flush();
        }
        try {
            SpawnHandle handle = relay.open(spawn);
            PrintWriter out = spec.commandLine().getOut();
            out.println(ready(handle));
            out.flush();
            awaitEnd(main.stdin());
            return 0;
        } catch (IOException e) {
            err.println("portcullis relay: cannot open spawn " + spawn.id() + ": " + e.getMessage());
            err.flush();
            return 1;
        } finally {
            stop(relay, metrics, err);
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnSignal);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already and will halt.
            }
        }
    }

    /** The ready line (SPEC R5). */
    static String ready(SpawnHandle handle) {
        return SpawnJson.ready(handle).toString();
    }

    private static void awaitEnd(InputStream lifeline) {
        byte[] sink = new byte[512];
        try {
            while (lifeline.read(sink) != -1) {
                // The wall writes nothing; only the end of the stream matters.
            }
        } catch (IOException e) {
            // A broken lifeline ends the spawn like a closed one.
        }
    }

    private static synchronized void stop(Relay relay, MetricsFile metrics, PrintWriter err) {
        try {
            relay.close();
        } catch (RuntimeException e) {
            err.println("portcullis relay: while stopping: " + e);
            err.flush();
        }
        if (metrics != null) {
            metrics.close();
        }
    }
}
