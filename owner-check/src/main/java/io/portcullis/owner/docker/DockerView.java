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
}
