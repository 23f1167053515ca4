package io.portcullis.it.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Java agent that writes {@code loaded} to the file its argument names: what a program would load
 * into a relay to act as the relay. {@link NoAttachEndToEndTest} packs it into a jar of its own.
 */
public final class MarkerAgent {
    private MarkerAgent() {}

    public static void agentmain(String marker) throws IOException {
        Files.writeString(Path.of(marker), "loaded");
    }
}
