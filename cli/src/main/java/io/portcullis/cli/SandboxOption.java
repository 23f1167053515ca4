package io.portcullis.cli;

import io.portcullis.launch.Executables;
import io.portcullis.launch.Sandbox;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --sandbox} option of {@code run} and {@code demo}, one definition for both. */
final class SandboxOption {
    @Option(
            names = "--sandbox",
            paramLabel = "KIND",
            converter = SandboxChoiceConverter.class,
            defaultValue = "auto",
            description =
                    "auto (bubblewrap when installed, else unshare), bwrap or unshare. Default: ${DEFAULT-VALUE}.")
    Sandbox.Choice choice;

    /** The sandbox chosen, from the programs {@code installed}; empty after adding why none can be. */
    Optional<Sandbox> resolve(Executables installed, List<String> problems) {
        try {
            return Optional.of(choice.resolve(installed));
        } catch (IllegalStateException e) {
            problems.add(String.valueOf(e.getMessage()));
            return Optional.empty();
        }
    }
}
