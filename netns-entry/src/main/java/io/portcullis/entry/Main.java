package io.portcullis.entry;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/** {@code portcullis entry}: the in-namespace listeners (SPEC R20-R21). */
public final class Main {

    static final int USAGE = 2;

    /** The entry itself failed before the command could start, as env(1) and timeout(1) report it. */
    static final int ENTRY_FAILED = 125;

    private static final String PREFIX = "portcullis entry: ";

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return switch (CommandLine.parse(args)) {
            case CommandLine.Help help -> {
                System.out.print(CommandLine.USAGE);
                yield 0;
            }
            case CommandLine.Usage usage -> {
                usage.problems().forEach(problem -> System.err.println(PREFIX + problem));
                System.err.println(PREFIX + "see --help");
                yield USAGE;
            }
            case CommandLine.Run run -> serve(run.options());
        };
    }

    private static int serve(EntryOptions options) {
        if (!Files.exists(options.relay())) {
            System.err.println(PREFIX + "relay socket " + options.relay()
                    + " does not exist yet; connections are closed until it does");
        }
        OutputStream readySink;
        try {
            readySink = options.readyFd().isPresent()
                    ? new FileOutputStream("/proc/self/fd/" + options.readyFd().getAsInt())
                    : System.out;
        } catch (IOException e) {
            System.err.println(PREFIX + "--ready-fd: " + options.readyFd().getAsInt()
                    + " (expected: a descriptor open for writing): " + e.getMessage());
            return USAGE;
        }
        Entry entry;
        try {
            entry = Entry.start(options, System.err);
        } catch (Listeners.BindFailure e) {
            System.err.println(PREFIX + e.getMessage() + "; started nothing");
            return ENTRY_FAILED;
        }
        if (!announce(readySink, entry.readiness())) {
            entry.close();
            return ENTRY_FAILED;
        }
        return options.command().isEmpty() ? runUntilStopped(entry) : runCommand(options, entry);
    }

    private static boolean announce(OutputStream sink, Readiness readiness) {
        byte[] line = (readiness.json() + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            sink.write(line);
            sink.flush();
            if (sink != System.out) {
                sink.close();
            }
            return !(sink == System.out && System.out.checkError());
        } catch (IOException e) {
            System.err.println(PREFIX + "cannot write the readiness line: " + e.getMessage());
            return false;
        }
    }

    /** Without a command the entry serves until SIGTERM or SIGINT ends the JVM. */
    private static int runUntilStopped(Entry entry) {
        try {
            entry.await();
            return 0;
        } catch (InterruptedException e) {
            return ENTRY_FAILED;
        }
    }

    private static int runCommand(EntryOptions options, Entry entry) {
        Process child;
        try {
            child = Child.start(options.command(), options.effectiveProxyPort());
        } catch (IOException e) {
            System.err.println(PREFIX + "cannot run " + options.command().getFirst() + ": " + e.getMessage());
            entry.close();
            return Child.launchFailureStatus(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(child), "stop child"));
        try {
            return Child.await(child);
        } catch (InterruptedException e) {
            return ENTRY_FAILED;
        }
    }

    /** A SIGTERM to the entry reaches the command too, with a grace period before SIGKILL. */
    private static void stop(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            if (!child.waitFor(5, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
        }
    }
}
