package io.portcullis.cli;

import io.portcullis.launch.Demo;
import io.portcullis.launch.Executables;
import io.portcullis.launch.Launch;
import io.portcullis.launch.Prerequisites;
import io.portcullis.launch.RunPolicy;
import io.portcullis.launch.Sandbox;
import io.portcullis.log.JsonLog;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.event.Level;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code portcullis demo}: a self-contained world showing allowed and refused connections (SPEC R42). */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Builds a small world of its own (an \"internet\" host with global addresses, a LAN host, a DNS server) in "
                    + "network namespaces with no route out, runs curl in a sandbox against allowed and refused "
                    + "targets, and prints what curl saw, the relay's verdict and code, and why.",
            "",
            "It runs inside a fresh network namespace of its own, so this machine's network is never touched and "
                    + "nothing leaves the machine. Needs root, ip (iproute2), curl, unshare (util-linux) and user "
                    + "namespaces; says which is missing.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the demo ran and every connection got the verdict its policy gives",
            "1:the demo could not run (a need is missing, or a part failed) or a verdict was not the expected one",
            "2:usage error"
        })
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SandboxOption sandboxOption;

    /** Set when this process is the demo's own copy inside its fresh network namespace. */
    @Option(names = "--in-own-namespace", hidden = true)
    boolean inOwnNamespace;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JsonLog.forPerson("portcullis demo", Level.WARN);
        try {
            int uid = RunPolicy.currentUid();
            Executables installed = Executables.onPath(Optional.ofNullable(System.getenv("PATH")));
            List<String> missing = new ArrayList<>(Prerequisites.missing(uid, installed, DemoCommand::succeeds));
            Optional<Sandbox> sandbox = sandboxOption.resolve(installed, missing);
            if (!missing.isEmpty()) {
                err.println("portcullis demo: cannot run here; it needs:");
                missing.forEach(need -> err.println("  - " + need));
                err.flush();
                return 1;
            }
            if (!inOwnNamespace) {
                return again(err);
            }
            int gatewayUid =
                    Demo.gatewayUid(RunPolicy.invokingUid(uid, Optional.ofNullable(System.getenv("SUDO_UID"))));
            Sandbox.Tmp tmp = Sandbox.Tmp.own(
                    Launch.commandFolders(Path.of("").toAbsolutePath(), Optional.ofNullable(System.getenv("PATH"))));
            Demo demo = new Demo(sandbox.orElseThrow(), tmp, RunCommand.entryCommand(), uid, gatewayUid);
            // Ctrl-C: the world's namespaces, the sandbox and the spawn's directory go too.
            Thread abort = new Thread(demo::abort, "demo-abort");
            Runtime.getRuntime().addShutdownHook(abort);
            try {
                return demo.run(out) ? 0 : 1;
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(abort);
                } catch (IllegalStateException shuttingDown) {
                    // The hook is running already.
                }
            }
        } catch (IOException | RuntimeException e) {
            err.println("portcullis demo: failed: " + e.getMessage());
            err.flush();
            return 1;
        }
    }

    /**
     * Runs this same command again in a fresh network namespace with loopback up: the world may only
     * be built where nothing routes out (scripts/netns-jvm does the same for the tests).
     */
    private int again(PrintWriter err) throws IOException, InterruptedException {
        ProcessHandle.Info self = ProcessHandle.current().info();
        Optional<String> java = self.command();
        Optional<String[]> arguments = self.arguments();
        if (java.isEmpty() || arguments.isEmpty()) {
            err.println("portcullis demo: cannot read this process's command line to run it in its own namespace");
            err.flush();
            return 1;
        }
        List<String> argv = new ArrayList<>(List.of(
                "unshare", "--net", "--", "/bin/sh", "-c", "ip link set lo up && exec \"$0\" \"$@\"", java.get()));
        argv.addAll(List.of(arguments.get()));
        argv.add("--in-own-namespace");
        Process process = new ProcessBuilder(argv).inheritIO().start();
        // A stop for this process is a stop for the demo, which then removes its world.
        Thread passOn = new Thread(
                () -> {
                    process.destroy();
                    try {
                        process.waitFor(15, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "demo-stop");
        Runtime.getRuntime().addShutdownHook(passOn);
        try {
            return process.waitFor();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(passOn);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already.
            }
        }
    }

    private static boolean succeeds(List<String> argv) {
        try {
            Process process = new ProcessBuilder(argv)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
