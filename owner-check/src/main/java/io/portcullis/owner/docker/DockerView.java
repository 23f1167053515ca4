package io.portcullis.owner.docker;

import java.util.List;

/** The running containers, as recently as the view knows them. */
@FunctionalInterface
public interface DockerView {

    /**
     * @param fresh ask Docker now instead of trusting the view kept from the events stream
     * @throws DockerDownException when Docker does not answer
     */
    List<ContainerInfo> containers(boolean fresh) throws DockerDownException;

    /**
     * Where containers may have addresses, as last known: never waits for Docker, and is kept when
     * Docker goes down. A view that knows no network says {@link DockerNetworks#NONE}.
     */
    default DockerNetworks networks() {
        return DockerNetworks.NONE;
    }
}
