package io.portcullis.relay.ops;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and git commit this relay was built from, written into the jar by the build
 * ({@code build.properties}); {@code unknown} where the build had no git checkout.
 */
record BuildInfo(String version, String commit) {
    private static final String UNKNOWN = "unknown";

    static BuildInfo ofThisBuild() {
        Properties build = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                build.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("build.properties: cannot read", e);
        }
        return new BuildInfo(known(build.getProperty("version")), known(build.getProperty("commit")));
    }

    /** A value the build filled in, or {@code unknown} for a missing or unfilled one. */
    private static String known(String value) {
        return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value;
    }
}
