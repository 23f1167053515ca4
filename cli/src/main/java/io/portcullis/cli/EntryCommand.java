package io.portcullis.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code portcullis entry}: listed here so the help names it. The ./portcullis executable hands
 * {@code entry} to the netns-entry jar before this CLI starts; reaching this class means it was
 * started some other way.
 */
@Command(
        name = "entry",
        mixinStandardHelpOptions = true,
        description = {
            "Inside a spawn's network namespace: binds its loopback listeners, hands them to the relay, announces "
                    + "readiness, then becomes the command (docs/entry.md). run and demo start it; it is rarely "
                    + "typed by hand.",
            "",
            "It is its own small program (the netns-entry jar, JDK only): the ./portcullis executable runs it "
                    + "directly, and 'portcullis entry --help' there lists its options."
        })
final class EntryCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine()
                .getErr()
                .println("portcullis entry: runs through the ./portcullis executable (the netns-entry jar), "
                        + "not this one; see 'portcullis entry --help' there");
        spec.commandLine().getErr().flush();
        return 2;
    }
}
