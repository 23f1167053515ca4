package io.portcullis.cli;

import io.portcullis.launch.Sandbox;
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
}
