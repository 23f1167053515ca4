package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import io.portcullis.wire.Sender;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * {@code portcullis entry} (SPEC R20-R21): binds the namespace's sockets, hands them to the relay,
 * announces readiness, then becomes the command. Nothing of it stays in the namespace.
 */
public final class Main {

    static final int USAGE = 2;

    /** The entry itself failed before the command could start, as env(1) and timeout(1) report it. */
    static final int ENTRY_FAILED = 125;

    /** How long the relay has to answer the hand-over. */
    static final int HANDOFF_TIMEOUT_MILLIS = 30_000;

    private static final String PREFIX = "portcullis entry: ";

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return switch (CommandLine.parse(System.getenv(), args)) {
            case CommandLine.Help help -> {
                System.out.print(CommandLine.USAGE);
                yield 0;
            }
            case CommandLine.Version version -> {
                System.out.println(CommandLine.VERSION);
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
        Readiness readiness;
        try (Listeners listeners = Listeners.bind(options.endpoints())) {
            String answer = Sender.handOver(
                    options.relay(), options.key(), listeners.sockets(), listeners.fds(), HANDOFF_TIMEOUT_MILLIS);
            if (!answer.equals(Handoff.ACCEPTED)) {
                System.err.println(PREFIX + "the relay refused the hand-over: " + answer + "; started nothing");
                return ENTRY_FAILED;
            }
            readiness = new Readiness(
                    options.effectiveProxyPort(),
                    options.forwards(),
                    options.door(),
                    options.named().stream().map(Handoff::text).toList(),
                    options.dns() ? Optional.of(Handoff.text(EntryOptions.DNS)) : Optional.empty(),
                    listeners.addresses().stream().map(Handoff::text).toList());
        } catch (Listeners.BindFailure e) {
            System.err.println(PREFIX + e.getMessage() + "; started nothing");
            return ENTRY_FAILED;
        } catch (IOException e) {
            System.err.println(PREFIX + "cannot hand the sockets to the relay at " + options.relay() + ": "
                    + e.getMessage() + "; started nothing");
            return ENTRY_FAILED;
        }
        if (!announce(readySink, readiness)) {
            return ENTRY_FAILED;
        }
        if (options.command().isEmpty()) {
            return 0;
        }
        Exec.Failure failure = Exec.become(options.command(), options.effectiveProxyPort());
        System.err.println(PREFIX + "cannot run " + failure.message());
        return failure.status();
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
}
