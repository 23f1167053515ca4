package io.portcullis.owner.kernel;

import java.nio.file.Path;
import java.util.Objects;

/** Where the proc filesystem is mounted; tests point it at captured trees. */
public record ProcRoot(Path path) {

    public static final ProcRoot SYSTEM = new ProcRoot(Path.of("/proc"));

    public ProcRoot {
        Objects.requireNonNull(path, "path");
    }

    Path resolve(String first, String... more) {
        return path.resolve(Path.of(first, more));
    }
}
