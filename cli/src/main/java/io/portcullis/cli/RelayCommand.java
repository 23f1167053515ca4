package io.portcullis.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.daemon.SpawnJson;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.ops.MetricsListener;
import io.portcullis.relay.ops.Routes;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
            "  {\"socket\", \"proxyPort\", \"forwards\", \"door\", \"tokenFile\", \"named\", \"dns\", \"handoffKey\","
                    + " \"metrics\"} (metrics: with --metrics-listen)",
            "handoffKey is the spawn's hand-over key: give it to the entry in PORTCULLIS_HANDOFF_KEY, never on a command"
                    + " line; a connection to the socket without it is turned away. The entry needs a pid namespace of its"
                    + " own, or another uid, unless the host configuration sets handoff.allowSharedPidNamespace.",
            "It runs until its standard input closes (the wall's lifeline), SIGTERM or SIGINT, then removes the "
                    + "directory. SIGTERM and SIGINT drain first: new connections are refused at once, open ones get "
                    + "--drain seconds to end. One JSON decision line per connection goes to standard error or the "
                    + "host's log.file.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:stopped cleanly", "1:the relay failed", "2:usage or configuration error"})
final class RelayCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(RelayCommand.class);

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
    Optional<Path> parent = Optional.empty();

    @Option(
            names = "--metrics-file",
            paramLabel = "FILE",
            description =
                    "Where the relay's metrics (Prometheus text) are written, every --metrics-every seconds and at exit.")
    Optional<Path> metricsFile = Optional.empty();

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
        Optional<SpawnPolicy> read = files.spawn(problems);
        Optional<HostConfig> readHost = files.host(problems);
        ConfigFiles.checkParent(parent, problems);
        ConfigFiles.checkNewFile("--metrics-file", metricsFile, problems);
        if (metricsEvery < 1) {
            problems.add("--metrics-every: " + metricsEvery + " (expected: >= 1)");
        }
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        SpawnPolicy spawn = read.orElseThrow();
        HostConfig host = readHost.orElseThrow();
        Relay relay;
        Optional<MetricsListener> listener;
        try {
            relay = ConfigFiles.relay(host, parent).start();
            try {
                listener = service.listen(Routes.of(relay));
            } catch (IOException | RuntimeException e) {
                relay.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            log.error("cannot start: {}", e.getMessage());
            return 1;
        }
        Optional<MetricsFile> file =
                metricsFile.map(path -> new MetricsFile(path, relay::metricsText, Duration.ofSeconds(metricsEvery)));
        Running running = new Running(relay, file, listener);
        Thread stopOnSignal = new Thread(
                () -> {
                    service.drain(relay);
                    running.stop();
                    // A signal is a clean stop for the wall: exit 0 once the directory is gone.
                    Runtime.getRuntime().halt(0);
                },
                "relay-stop");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        if (!Hangup.onHangup(relay::reopenLog)) {
            log.warn("SIGHUP cannot be handled by this JVM; the decision log is not reopened");
        }
        try {
            SpawnHandle handle = relay.open(spawn);
            PrintWriter out = spec.commandLine().getOut();
            out.println(ready(handle, listener));
            out.flush();
            awaitEnd(main.stdin());
            return 0;
        } catch (IOException e) {
            log.error("cannot open spawn {}: {}", spawn.id(), e.getMessage());
            return 1;
        } finally {
            running.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnSignal);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already and will halt.
            }
        }
    }

    /** The ready line (SPEC R5), with the metrics listener's address when there is one. */
    static String ready(SpawnHandle handle, Optional<MetricsListener> listener) {
        ObjectNode line = SpawnJson.opened(handle);
        listener.ifPresent(metrics -> line.put("metrics", metrics.text()));
        return line.toString();
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

    /**
     * What a running relay command stops, once: from a signal after its drain, or from the
     * lifeline's end, which stops at once (the wall is gone), a drain in progress included.
     */
    private static final class Running {
        private final Relay relay;
        private final Optional<MetricsFile> file;
        private final Optional<MetricsListener> listener;
        private boolean stopped;

        Running(Relay relay, Optional<MetricsFile> file, Optional<MetricsListener> listener) {
            this.relay = relay;
            this.file = file;
            this.listener = listener;
        }

        synchronized void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            try {
                relay.close();
            } catch (RuntimeException e) {
                log.error("while stopping: {}", e.toString());
            }
            file.ifPresent(MetricsFile::close);
            listener.ifPresent(MetricsListener::close);
        }
    }
}
