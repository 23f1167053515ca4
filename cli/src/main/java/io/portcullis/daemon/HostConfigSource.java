package io.portcullis.daemon;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.policy.HostConfig;

/** Reads the host configuration again for a reload; the daemon's is the file it was started with. */
@FunctionalInterface
public interface HostConfigSource {

    /** The configuration as it is now, or every problem with it. */
    HostConfig read() throws ConfigException;
}
