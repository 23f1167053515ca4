package io.portcullis.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.daemon.ControlNamespaces;
import io.portcullis.daemon.Daemon;
import io.portcullis.daemon.Predecessor;
import io.portcullis.daemon.ServiceManager;
import io.portcullis.relay.Relay;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.ops.ListenerLimits;
import io.portcullis.relay.ops.MetricsListener;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.transport.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code portcullis daemon}: many spawns in one relay, driven over a unix control socket (SPEC R5). */
@Command(
        name = "daemon",
        mixinStandardHelpOptions = true,
        description = {
            "Runs one relay for many spawns. The control socket (unix, mode 0600) speaks HTTP/1.1 and JSON:",
            "  POST /spawns, GET /spawns, GET /spawns/{id}, PUT /spawns/{id}, DELETE /spawns/{id}, POST /reload,",
            "  POST /upgrade (a successor's, see --upgrade), GET /metrics, GET /healthz, GET /readyz",
            "It serves only processes of this uid in the daemon's own network namespace or one given with --control-netns: "
                    + "a spawn running as this uid, or a namespace made inside one, is refused before a byte is read. "
                    + "It holds at most 32 connections, and each request has 30 s from the connection (or the previous answer) "
                    + "to arrive whole; the metrics listener holds 32, with 10 s.",
            "Prints {\"control\", \"generation\", \"metrics\"} once it listens (metrics: with --metrics-listen), after"
                    + " writing --pid-file. SIGHUP reopens the decision log (log.file, for rotation) and reloads the host"
                    + " configuration like POST /reload; "
                    + "SIGTERM or SIGINT drains (new connections are refused, open ones get --drain seconds to end), then closes every spawn (removing its directory) and the control socket, and exits 0.",
            "With --upgrade it takes every spawn and the control socket over from the daemon running at --control, "
                    + "which then drains and exits; its ready line adds {\"upgradedFrom\", \"spawns\"}.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:stopped cleanly", "1:the daemon failed", "2:usage or configuration error"})
final class DaemonCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(DaemonCommand.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @Option(
            names = "--host",
            required = true,
            paramLabel = "FILE",
            description = "The host configuration (JSON; see docs/policy.md); read again on reload.")
    Path hostFile;

    @Option(
            names = "--control",
            required = true,
            paramLabel = "PATH",
            description = "Where the control socket is made.")
    Path control;

    @Option(
            names = "--control-netns",
            paramLabel = "PATH",
            description =
                    "Also serve the control socket to processes of this uid in this network namespace: a namespace "
                            + "file such as /run/netns/NAME or /proc/PID/ns/net, read once at start and held open. Repeatable.")
    List<Path> controlNamespaces = new ArrayList<>();

    @Option(
            names = "--upgrade",
            description = "Take over from the daemon that serves --control now (same --control, same --dir): receive "
                    + "every spawn it serves with its listening sockets, serve them, take the control socket's path, "
                    + "then tell it to stop accepting, drain (its --drain) and exit. A connection that comes meanwhile "
                    + "waits in the kernel's accept queue. If any step fails, the running daemon serves on and this one "
                    + "exits 1 saying why.")
    boolean upgrade;

    @Option(
            names = "--dir",
            paramLabel = "PARENT",
            description = "Where the spawns' directories are made; default: the system's temporary directory.")
    Optional<Path> parent = Optional.empty();

    @Option(
            names = "--pid-file",
            paramLabel = "FILE",
            description = "Writes this process's pid to FILE once it is ready (whole, by a rename), and removes it at a"
                    + " clean exit; a FILE naming another running process is refused at start. For what signals the"
                    + " daemon, such as logrotate's postrotate (kill -HUP: reopen the decision log).")
    Optional<Path> pidFile = Optional.empty();

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        List<String> problems = new ArrayList<>();
        service.check(problems);
        Optional<HostConfig> host = ConfigFiles.load(() -> HostConfigJson.read(hostFile), problems);
        ConfigFiles.checkParent(parent, problems);
        pidFile.ifPresent(file -> PidFile.check(file, problems));
        Path controlParent = control.toAbsolutePath().getParent();
        if (controlParent == null || !Files.isDirectory(controlParent)) {
            problems.add("--control: " + control + " (expected: a path in an existing directory)");
        }
        Optional<ControlNamespaces> namespaces;
        Optional<ServiceManager> manager;
        try {
            namespaces = ControlNamespaces.open(controlNamespaces, problems);
            // Under systemd: the descriptors its store passed back are this process's from here on.
            manager = ServiceManager.open(System.getenv());
        } catch (IOException | IllegalArgumentException e) {
            log.error("cannot start: {}", e.getMessage());
            return 1;
        }
        if (ConfigFiles.report(problems, err)) {
            namespaces.ifPresent(ControlNamespaces::close);
            return 2;
        }
        Daemon daemon;
        Optional<MetricsListener> metrics;
        try {
            daemon = upgrade
                    ? takeOver(host.orElseThrow(), namespaces.orElseThrow())
                    : start(host.orElseThrow(), namespaces.orElseThrow(), manager);
            try {
                metrics = upgrade ? listenOnceFree(daemon) : service.listen(daemon.routes());
            } catch (IOException | RuntimeException e) {
                daemon.close();
                throw e;
            }
        } catch (Predecessor.Failed e) {
            log.error("upgrade failed, the running daemon serves on: {}", e.getMessage());
            err.println("portcullis daemon --upgrade: failed, the running daemon serves on: " + e.getMessage());
            err.flush();
            return 1;
        } catch (IOException | RuntimeException e) {
            log.error("cannot start: {}", e.getMessage());
            return 1;
        }
        Thread stopOnSignal = new Thread(
                () -> {
                    manager.ifPresent(ServiceManager::stopping);
                    // The control socket and the metrics listener answer while it drains (readyz 503).
                    service.drain(daemon.relay());
                    // Under systemd the kept spawns outlive the process: let them go before the relay closes.
                    manager.ifPresent(ServiceManager::close);
                    stop(daemon, metrics);
                    removePidFile();
                    // A signal is a clean stop: exit 0 once every directory and the control socket are gone.
                    Runtime.getRuntime().halt(0);
                },
                "daemon-stop");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        // SIGHUP reopens the decision log (rotation) and reloads the host configuration.
        if (!Hangup.onHangup(() -> {
            daemon.relay().reopenLog();
            daemon.reload();
        })) {
            log.warn("SIGHUP cannot be handled by this JVM; use POST /reload");
        }
        // Ready, and SIGHUP and SIGTERM handled: whoever reads the pid file may signal it now.
        if (pidFile.isPresent()) {
            try {
                PidFile.write(pidFile.get());
            } catch (IOException e) {
                log.error("cannot start: --pid-file: {}", e.getMessage());
                Runtime.getRuntime().removeShutdownHook(stopOnSignal);
                stop(daemon, metrics);
                return 1;
            }
        }
        ObjectNode ready = JSON.createObjectNode();
        ready.put("control", daemon.control().toString());
        ready.put("generation", daemon.relay().generation());
        metrics.ifPresent(listener -> ready.put("metrics", listener.text()));
        daemon.predecessor().ifPresent(from -> {
            ready.put("upgradedFrom", from.pid());
            ready.put("spawns", from.restored().size());
        });
        PrintWriter out = spec.commandLine().getOut();
        out.println(ready);
        out.flush();
        manager.ifPresent(ServiceManager::ready);
        long successor;
        try {
            successor = daemon.upgraded().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the upgrade future failed", e);
        }
        // Upgraded: the successor serves every spawn and the control path; this daemon drains and exits.
        metrics.ifPresent(MetricsListener::close);
        log.info("pid {} took over; draining the open connections for up to --drain seconds, then exiting", successor);
        service.drain(daemon.relay());
        stop(daemon, Optional.empty());
        Runtime.getRuntime().halt(0);
        return 0;
    }

    /**
     * {@code --upgrade}: a new relay that takes every spawn and the control path of the running
     * daemon (SPEC R44); a failure closes what was started here and leaves the running daemon serving.
     */
    private Daemon takeOver(HostConfig host, ControlNamespaces namespaces) throws IOException, Predecessor.Failed {
        Relay relay;
        try {
            relay = ConfigFiles.relay(host, parent).start();
        } catch (IOException | RuntimeException e) {
            namespaces.close();
            throw e;
        }
        try {
            return Daemon.upgrade(
                    relay,
                    control,
                    () -> HostConfigJson.read(hostFile),
                    new Daemon.Settings(Transport.best(), namespaces, ListenerLimits.CONTROL));
        } catch (Predecessor.Failed | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    /**
     * The metrics listener of a successor: the running daemon closes its own once it stopped, so
     * the same address may be busy for a moment; tried again for up to 10 s.
     */
    private Optional<MetricsListener> listenOnceFree(Daemon daemon) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return service.listen(daemon.routes());
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Starts the relay, serves again the spawns that systemd kept (before any wall can ask), then listens. */
    private Daemon start(HostConfig host, ControlNamespaces namespaces, Optional<ServiceManager> manager)
            throws IOException {
        Relay relay;
        try {
            relay = ConfigFiles.relay(host, parent).start();
        } catch (IOException | RuntimeException e) {
            namespaces.close();
            throw e;
        }
        try {
            Daemon.Settings settings = new Daemon.Settings(Transport.best(), namespaces, ListenerLimits.CONTROL);
            if (manager.isPresent()) {
                manager.get().restore(relay);
                settings = settings.keptBy(manager.get());
            }
            return Daemon.start(relay, control, () -> HostConfigJson.read(hostFile), settings);
        } catch (IOException | RuntimeException e) {
            // Spawns restored before the failure stay in the store for the next start.
            manager.ifPresent(ServiceManager::close);
            relay.close();
            throw e;
        }
    }

    private void removePidFile() {
        if (pidFile.isEmpty()) {
            return;
        }
        try {
            PidFile.remove(pidFile.get());
        } catch (IOException e) {
            log.warn("could not remove the pid file {}: {}", pidFile.get(), e.toString());
        }
    }

    private static void stop(Daemon daemon, Optional<MetricsListener> metrics) {
        try {
            daemon.close();
        } catch (RuntimeException e) {
            log.error("while stopping: {}", e.toString());
        } finally {
            metrics.ifPresent(MetricsListener::close);
        }
    }
}
