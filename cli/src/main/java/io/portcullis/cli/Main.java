package io.portcullis.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/** The {@code portcullis} command line: one executable, one subcommand per job. */
@Command(
        name = "portcullis",
        mixinStandardHelpOptions = true,
        version = Main.VERSION,
        description = "The network gate of a sandbox wall: a spawn in a loopback-only network namespace reaches "
                + "exactly what its policy allows, checked against the kernel, DNS and Docker at each connection.",
        commandListHeading = "%nCommands:%n",
        footer = {"", "Every command takes --help. Exit status 2 means a usage or configuration error."})
public final class Main implements Runnable {
    static final String VERSION = "portcullis 0.1.0";

    private final InputStream in;

    @CommandLine.Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    private Main(InputStream in) {
        this.in = in;
    }

    /** Runs the command line with these streams; returns the exit status. Never throws. */
    public static int run(String[] args, InputStream stdin, PrintStream stdout, PrintStream stderr) {
        if (Usage.answer(args, stdout)) {
            return 0;
        }
        Optional<RunCommand> plainRun = RunArguments.read(List.of(args));
        if (plainRun.isPresent()) {
            return plainRun(plainRun.get(), new PrintWriter(stderr, true, StandardCharsets.UTF_8));
        }
        CommandLine cli = commandLine(stdin, named(args));
        cli.setOut(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(stderr, true, StandardCharsets.UTF_8));
        cli.setParameterExceptionHandler(Main::usageError);
        cli.setExecutionExceptionHandler(
                (e, commandLine, parsed) -> failed(commandLine.getCommandName(), e, commandLine.getErr()));
        try {
            return cli.execute(args);
        } catch (RuntimeException e) {
            stderr.println("portcullis: " + e);
            return 2;
        }
    }

    /** {@code run} read without picocli (decision D100), its failures told as picocli's are ({@link #failed}). */
    private static int plainRun(RunCommand run, PrintWriter err) {
        run.plainErr = err;
        try {
            return run.call();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("run", e, err);
        } catch (RuntimeException e) {
            return failed("run", e, err);
        }
    }

    /** A command that threw: one line naming it and the exception, and status 2. */
    private static int failed(String command, Exception e, PrintWriter err) {
        err.println("portcullis " + command + ": " + e);
        err.flush();
        return 2;
    }

    /**
     * The command line as {@link #run} parses it, for the tools that write its shell completion and
     * manual pages from the model (scripts/dist.sh); it reads standard input if executed.
     */
    public static CommandLine commandLine() {
        return commandLine(System.in, name -> true);
    }

    /**
     * The command line with the whole model of each subcommand that {@code whole} takes, and of the
     * others only what the top level's help shows of them: their name and description, read from
     * their annotation without loading what they use. {@code portcullis --help} so builds no
     * subcommand's options and initialises no subcommand class (Jackson, Netty, docker-java behind
     * them), and {@code run} builds its own alone (decision D75).
     */
    private static CommandLine commandLine(InputStream stdin, Predicate<String> whole) {
        CommandLine cli = new CommandLine(new Main(stdin));
        // The subcommands, in the order the help lists them; help follows them. Loaded here, not
        // when this class is, which help answered from its text (Usage) never needs.
        List<Class<?>> commands = List.of(
                RunCommand.class,
                DemoCommand.class,
                CheckCommand.class,
                OwnerCommand.class,
                RelayCommand.class,
                DaemonCommand.class,
                EntryCommand.class);
        for (Class<?> command : commands) {
            Command annotation = command.getAnnotation(Command.class);
            cli.addSubcommand(annotation.name(), whole.test(annotation.name()) ? command : summary(annotation));
        }
        cli.addSubcommand(new CommandLine.HelpCommand());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        giveVersion(cli);
        return cli;
    }

    /**
     * The subcommands these arguments can reach: each argument before {@code --} that names one
     * ({@code run ...}, {@code help run}); the top level's options and a misspelt name reach none.
     */
    private static Predicate<String> named(String[] args) {
        List<String> all = Arrays.asList(args);
        int end = all.indexOf("--");
        return Set.copyOf(end < 0 ? all : all.subList(0, end))::contains;
    }

    /** A subcommand as the top level's help lists it, for a command line that does not run it. */
    private static CommandSpec summary(Command annotation) {
        CommandSpec summary = CommandSpec.create().name(annotation.name()).aliases(annotation.aliases());
        summary.usageMessage()
                .header(annotation.header())
                .description(annotation.description())
                .hidden(annotation.hidden());
        return summary;
    }

    /** Every subcommand answers --version with the top level's line. */
    private static void giveVersion(CommandLine cli) {
        for (CommandLine sub : cli.getSubcommands().values()) {
            sub.getCommandSpec().version(VERSION);
            giveVersion(sub);
        }
    }

    /** A usage error is the problem and a pointer to the help, not the whole help. */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine where = e.getCommandLine();
        String command = where.getCommandSpec().qualifiedName(" ");
        PrintWriter err = where.getErr();
        err.println(command + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("see '" + command + " --help'");
        err.flush();
        return 2;
    }

    /** Standard input, for subcommands that read targets from it. */
    InputStream stdin() {
        return in;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
