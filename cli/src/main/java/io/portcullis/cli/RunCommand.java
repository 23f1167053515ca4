package io.portcullis.cli;

import io.portcullis.launch.EntryCommand;
import io.portcullis.launch.Executables;
import io.portcullis.launch.Launch;
import io.portcullis.launch.RefusalLine;
import io.portcullis.launch.RunDecisions;
import io.portcullis.launch.RunPolicy;
import io.portcullis.launch.Sandbox;
import io.portcullis.log.JsonLog;
import io.portcullis.relay.Relay;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.decisionlog.JsonLineSink;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code portcullis run}: a command in a new network namespace whose only way out is a relay (SPEC R40). */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a command in new user, network, pid and IPC namespaces (a network with loopback and nothing else, "
                    + "a /tmp of its own), with the entry inside and a relay in this process: the command reaches "
                    + "exactly what the spawn policy allows, through the proxy variables (HTTP_PROXY, HTTPS_PROXY) and "
                    + "the loopback forwards, and sees, signals and attaches to no process outside the sandbox.",
            "",
            "The policy is --spawn FILE, or built from --internet and --allow (none of them: nothing is allowed). "
                    + "HOST:PORT/http is reached by plain HTTP; HOST:PORT is https for port 443, tcp otherwise; a "
                    + "loopback HOST:PORT is also a forward of that port to this host's loopback. Only this user's "
                    + "uid may connect to the spawn's socket.",
            "",
            "Each refused connection is one line on standard error (portcullis: refused ...); allowed ones print "
                    + "nothing. One JSON decision line per connection goes to --log FILE, else the host's log.file, "
                    + "else nowhere. The gateway's uid for the owner check (a loopback forward) is the host's "
                    + "owner.gatewayUid, else the uid that runs this (under sudo: SUDO_UID; never root), so that user's own "
                    + "services are reachable when listed. SIGINT and SIGTERM stop the command; the spawn's "
                    + "directory is removed on every exit.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "N:the command's (128+S when signal S ended it)",
            "2:usage or configuration error",
            "125:the relay, the sandbox or the entry failed before the command started"
        })
final class RunCommand implements Callable<Integer> {
    static final int FAILED_BEFORE_COMMAND = 125;

    @Spec
    CommandSpec spec;

    /** Where run's own messages go when {@link RunArguments} read the arguments (no spec then); else picocli's. */
    @Nullable
    PrintWriter plainErr;

    @Option(names = "--spawn", paramLabel = "FILE", description = "The spawn policy (JSON; see docs/policy.md).")
    Optional<Path> spawnFile = Optional.empty();

    @Option(
            names = "--host",
            paramLabel = "FILE",
            description = "The host configuration (JSON; see docs/policy.md); defaults when absent.")
    Optional<Path> hostFile = Optional.empty();

    @Option(names = "--internet", description = "Also allow HTTPS (CONNECT to port 443) to global addresses (SPEC R8).")
    boolean internet;

    @Option(names = "--allow", paramLabel = "HOST:PORT[/http]", description = "Allow this exact target (repeatable).")
    List<String> allows = new ArrayList<>();

    @Option(
            names = "--log",
            paramLabel = "FILE",
            description = "Append the JSON decision lines to this file (default: the host's log.file, else none).")
    Optional<Path> logFile = Optional.empty();

    @Option(
            names = "--dir",
            paramLabel = "PARENT",
            description = "Where the spawn's directory is made; default: the system's temporary directory.")
    Optional<Path> parent = Optional.empty();

    @Mixin
    SandboxOption sandboxOption;

    @Option(
            names = "--share-tmp",
            description = "Give the command this host's /tmp. Default: an empty /tmp of its own, seen by the command"
                    + " alone and gone when it ends.")
    boolean shareTmp;

    @Parameters(paramLabel = "CMD", arity = "1..*", description = "The command and its arguments, after --.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = plainErr != null ? plainErr : spec.commandLine().getErr();
        JsonLog.forPerson("portcullis run", Level.WARN);
        List<String> problems = new ArrayList<>();
        int uid = -1;
        try {
            uid = RunPolicy.currentUid();
        } catch (IOException e) {
            problems.add("this process's uid cannot be read: " + e.getMessage());
        }
        int invoking = RunPolicy.invokingUid(uid, Optional.ofNullable(System.getenv("SUDO_UID")));
        Optional<SpawnPolicy> policy = policy(uid, problems);
        Optional<HostConfig> host = host(invoking, problems);
        Optional<Sandbox> sandbox =
                sandboxOption.resolve(Executables.onPath(Optional.ofNullable(System.getenv("PATH"))), problems);
        ConfigFiles.checkParent(parent, problems);
        ConfigFiles.checkNewFile("--log", logFile, problems);
        if (!problems.isEmpty()) {
            problems.forEach(p -> err.println("portcullis run: " + p));
            err.flush();
            return 2;
        }
        return run(
                policy.orElseThrow(),
                host.orElseThrow(),
                refusalLine(host.orElseThrow(), uid, invoking),
                sandbox.orElseThrow(),
                err);
    }

    /** How refusals read: with the gateway's uid and where it came from. */
    private static RefusalLine refusalLine(HostConfig host, int uid, int invoking) {
        int gateway = host.owner().gatewayUid();
        String origin = gateway != RunPolicy.hostDefaults(invoking).owner().gatewayUid()
                ? RefusalLine.HOST_FILE
                : invoking != uid ? RefusalLine.SUDO : invoking == 0 ? RefusalLine.ROOT : RefusalLine.INVOKER;
        return new RefusalLine(gateway, origin);
    }

    /** The spawn's policy; empty after adding its problems (a uid that cannot be read is one already). */
    private Optional<SpawnPolicy> policy(int uid, List<String> problems) {
        if (uid < 0) {
            return Optional.empty();
        }
        try {
            if (spawnFile.isEmpty()) {
                return Optional.of(
                        RunPolicy.fromAllows("run-" + ProcessHandle.current().pid(), internet, allows, uid));
            }
            if (internet || !allows.isEmpty()) {
                problems.add("--spawn: with --internet or --allow (expected: a policy file or the options, not both)");
                return Optional.empty();
            }
            return Optional.of(RunPolicy.forPeer(SpawnPolicyJson.read(spawnFile.get()), uid));
        } catch (ConfigException e) {
            problems.addAll(e.problems().isEmpty() ? List.of(e.getMessage()) : e.problems());
            return Optional.empty();
        }
    }

    /** The host file, whose gateway uid is the invoking user's unless it names one. */
    private Optional<HostConfig> host(int invoking, List<String> problems) {
        HostConfig defaults = RunPolicy.hostDefaults(invoking);
        Optional<HostConfig> host = hostFile.isEmpty()
                ? Optional.of(defaults)
                : ConfigFiles.load(() -> HostConfigJson.read(hostFile.get(), defaults), problems);
        if (logFile.isEmpty()) {
            return host;
        }
        Path log = logFile.get().toAbsolutePath();
        return host.map(read -> read.withLog(new HostConfig.Log(Optional.of(log))));
    }

    private int run(SpawnPolicy policy, HostConfig host, RefusalLine format, Sandbox sandbox, PrintWriter err)
            throws InterruptedException {
        Optional<JsonLineSink> json;
        try {
            json = host.log().file().isPresent()
                    ? Optional.of(JsonLineSink.toFile(host.log().file().get()))
                    : Optional.empty();
        } catch (IOException e) {
            return failed(err, "cannot open the decision log: " + e.getMessage());
        }
        RunDecisions decisions = new RunDecisions(format, System.err, json.map(DecisionSink.class::cast));
        // One spawn: only its budget must fit the descriptor limit, not the relay's default 16384.
        Relay.Builder builder = Relay.builder(host).decisions(decisions).descriptorsFor(1);
        parent.ifPresent(builder::directory);
        Relay relay;
        try {
            relay = builder.start();
        } catch (IOException e) {
            closeLogs(decisions, json);
            return failed(err, "cannot start the relay: " + e.getMessage());
        }
        AtomicReference<Launch> launch = new AtomicReference<>();
        Thread stopOnSignal = new Thread(
                () -> {
                    // SIGINT or SIGTERM: stop the command, remove the spawn, and exit with what the command did.
                    Launch running = launch.get();
                    int status = 128 + 15;
                    try {
                        status = running == null ? status : running.stop(Launch.STOP_GRACE);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    stop(running, relay, err);
                    closeLogs(decisions, json);
                    Runtime.getRuntime().halt(status);
                },
                "run-stop");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        try {
            Sandbox.Tmp tmp = shareTmp
                    ? Sandbox.Tmp.SHARED
                    : Sandbox.Tmp.own(Launch.commandFolders(
                            Path.of("").toAbsolutePath(), Optional.ofNullable(System.getenv("PATH"))));
            launch.set(Launch.start(relay, policy, sandbox, tmp, entryCommand(), command, ProcessBuilder::inheritIO));
            int status = launch.get().waitFor();
            if (status != 0 && !launch.get().entryWasReady()) {
                err.println(
                        "portcullis run: the " + sandbox.program() + " sandbox or the entry failed before the command"
                                + " started (exit " + status + "); see the messages above");
                err.flush();
                return FAILED_BEFORE_COMMAND;
            }
            return status;
        } catch (IOException | RuntimeException e) {
            return failed(err, "cannot start the command: " + e.getMessage());
        } finally {
            stop(launch.get(), relay, err);
            closeLogs(decisions, json);
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnSignal);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already and will halt.
            }
        }
    }

    /** After the relay: its last decisions are written by then. */
    private static synchronized void closeLogs(RunDecisions decisions, Optional<JsonLineSink> json) {
        decisions.close();
        json.ifPresent(JsonLineSink::close);
    }

    /**
     * When this runs from the executable: the entry's JVM command line that its launcher gave
     * ({@code portcullis.entry}, one word a line), else {@code ./portcullis entry}. Otherwise this
     * JVM with the entry's jar.
     */
    static EntryCommand entryCommand() {
        String executable = System.getProperty("portcullis.executable");
        Path javaHome = Path.of(System.getProperty("java.home"));
        if (executable != null && Files.isExecutable(Path.of(executable))) {
            String launched = System.getProperty("portcullis.entry", "");
            return launched.isEmpty()
                    ? EntryCommand.executable(Path.of(executable), javaHome)
                    : EntryCommand.launched(List.of(launched.split("\n", -1)), Path.of(executable), javaHome);
        }
        return EntryCommand.thisJava(javaHome);
    }

    private static int failed(PrintWriter err, String message) {
        err.println("portcullis run: " + message);
        err.flush();
        return FAILED_BEFORE_COMMAND;
    }

    private static synchronized void stop(Launch launch, Relay relay, PrintWriter err) {
        try {
            if (launch != null) {
                launch.close();
            }
        } catch (RuntimeException e) {
            err.println("portcullis run: while removing the spawn: " + e);
        } finally {
            try {
                relay.close();
            } catch (RuntimeException e) {
                err.println("portcullis run: while stopping the relay: " + e);
            }
            err.flush();
        }
    }
}
