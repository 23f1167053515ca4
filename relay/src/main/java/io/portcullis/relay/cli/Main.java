package io.portcullis.relay.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code portcullis} command line: one executable, one subcommand per job. */
@Command(
        name = "portcullis",
        mixinStandardHelpOptions = true,
        version = "portcullis 0.1.0",
        description = "The network gate of a sandbox wall.",
        subcommands = {CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
