package io.portcullis.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ControlNamespacesTest {
    @Test
    void everyPathThatNamesNoNetworkNamespaceIsAProblem(@TempDir Path dir) throws Exception {
        List<String> problems = new ArrayList<>();
        List<Path> paths = List.of(
                dir.resolve("none"),
                Files.writeString(dir.resolve("file"), "x"),
                Path.of("/proc/self/ns/ipc"),
                Path.of("/proc/self/ns/net"));

        Optional<ControlNamespaces> opened = ControlNamespaces.open(paths, problems);

        assertTrue(opened.isEmpty());
        assertEquals(3, problems.size(), problems.toString());
        for (int i = 0; i < 3; i++) {
            assertTrue(
                    problems.get(i).startsWith("--control-netns: " + paths.get(i) + " (expected: a network namespace"),
                    problems.get(i));
        }
    }

    @Test
    void theDaemonsOwnNamespaceIsAlwaysServedAndAListedOneToo() throws Exception {
        Process holder = new ProcessBuilder("unshare", "--net", "sleep", "30").start();
        try {
            Path file = Path.of("/proc", Long.toString(holder.pid()), "ns", "net");
            NetworkNamespace own = NetworkNamespace.own();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (NetworkNamespace.of(file).equals(own) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            NetworkNamespace listed = NetworkNamespace.of(file);
            assertFalse(listed.equals(own), "unshare made no namespace");
            List<String> problems = new ArrayList<>();

            try (ControlNamespaces namespaces =
                    ControlNamespaces.open(List.of(file), problems).orElseThrow()) {
                holder.destroyForcibly().waitFor();

                assertEquals(List.of(), problems);
                assertTrue(namespaces.contains(own));
                assertTrue(namespaces.contains(listed), "held open after its process ended");
                assertFalse(namespaces.contains(new NetworkNamespace(own.device(), 1)));
            }
            try (ControlNamespaces ownOnly = ControlNamespaces.own()) {
                assertTrue(ownOnly.contains(own));
                assertFalse(ownOnly.contains(listed));
            }
        } finally {
            holder.destroyForcibly();
        }
    }
}
