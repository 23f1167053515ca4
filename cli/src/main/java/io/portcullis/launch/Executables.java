package io.portcullis.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** Whether a program is installed: the seam that lets tests choose the sandbox. */
@FunctionalInterface
public interface Executables {

    boolean installed(String name);

    /** Looks through the directories of a {@code PATH} value. */
    static Executables onPath(String path) {
        String dirs = path == null ? "" : path;
        return name -> Arrays.stream(dirs.split(":"))
                .filter(dir -> !dir.isEmpty())
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, name)));
    }
}
