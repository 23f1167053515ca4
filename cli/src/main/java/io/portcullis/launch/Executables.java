package io.portcullis.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/** Whether a program is installed: the seam that lets tests choose the sandbox. */
@FunctionalInterface
public interface Executables {

    boolean installed(String name);

    /** Looks through the directories of a {@code PATH} value; none when it is not set. */
    static Executables onPath(Optional<String> path) {
        String dirs = path.orElse("");
        return name -> Arrays.stream(dirs.split(":"))
                .filter(dir -> !dir.isEmpty())
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, name)));
    }
}
