package io.portcullis.owner.docker;

import java.io.Serial;

/** Docker did not answer: the owner check refuses with {@code owner-docker-down}. */
public final class DockerDownException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    public DockerDownException(String message, Throwable cause) {
        super(message, cause);
    }
}
