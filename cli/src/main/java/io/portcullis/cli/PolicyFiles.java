package io.portcullis.cli;

import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --spawn FILE} and {@code --host FILE} options of the commands that judge one spawn. */
final class PolicyFiles {
    @Option(
            names = "--spawn",
            required = true,
            paramLabel = "FILE",
            description = "The spawn policy (JSON; see docs/policy.md).")
    Path spawnFile;

    @Option(
            names = "--host",
            paramLabel = "FILE",
            description = "The host configuration (JSON; see docs/policy.md); defaults when absent.")
    Optional<Path> hostFile = Optional.empty();

    /** The spawn policy; empty after adding its problems. */
    Optional<SpawnPolicy> spawn(List<String> problems) {
        return ConfigFiles.spawn(spawnFile, problems);
    }

    /** The host configuration (the defaults without {@code --host}); empty after adding its problems. */
    Optional<HostConfig> host(List<String> problems) {
        return ConfigFiles.host(hostFile, problems);
    }
}
