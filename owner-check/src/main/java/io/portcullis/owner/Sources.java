package io.portcullis.owner;

import io.portcullis.owner.docker.DockerView;
import io.portcullis.owner.kernel.ListenerSource;
import io.portcullis.owner.kernel.ProcessSource;
import java.util.Objects;

/** Where the owner check looks: the kernel's listeners, the processes, Docker, and the loopback device. */
record Sources(ListenerSource listeners, ProcessSource processes, DockerView docker, int loopbackIndex) {
    Sources {
        Objects.requireNonNull(listeners, "listeners");
        Objects.requireNonNull(processes, "processes");
        Objects.requireNonNull(docker, "docker");
    }
}
