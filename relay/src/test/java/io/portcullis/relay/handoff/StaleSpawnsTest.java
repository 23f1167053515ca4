package io.portcullis.relay.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sweep of spawn directories left by relays that are gone, on real directories and processes. */
class StaleSpawnsTest {
    /** This JVM's pid with a start time it does not have: a relay that was, whose pid was reused. */
    private static final String GONE = ProcessHandle.current().pid() + ".1";

    @TempDir
    Path parent;

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "none",
            value = {
                "spawn-bot-123.456-789, 123.456",
                "spawn-a-b.c-42.7-1, 42.7",
                "spawn--1.2-3, 1.2",
                "spawn-bot-123-789, none",
                "spawn-bot-123.456-, none",
                "spawn-bot-x.456-1, none",
                "junit-123.456-789, none",
            })
    void theMakerIsReadFromTheName(String name, String maker) {
        assertEquals(Optional.ofNullable(maker), StaleSpawns.maker(name));
    }

    /** A directory as a relay leaves it: the socket file in it, nothing listening. */
    private Path leftBy(String maker) throws Exception {
        Path directory = Files.createDirectory(parent.resolve("spawn-bot-" + maker + "-17"));
        Path socket = directory.resolve(SpawnSocket.NAME);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));
        return directory;
    }

    @Test
    void aDirectoryWhoseRelayIsGoneIsRemoved() throws Exception {
        Path directory = leftBy(GONE);

        assertEquals(1, StaleSpawns.sweep(parent));

        assertFalse(Files.exists(directory));
    }

    @Test
    void aLiveRelaysDirectoryStays() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            Path mine = leftBy(StaleSpawns.self());
            Path theirs = leftBy(
                    other.pid() + "." + StaleSpawns.startTime(other.pid()).orElseThrow());

            assertEquals(0, StaleSpawns.sweep(parent));

            assertTrue(Files.exists(mine.resolve(SpawnSocket.NAME)));
            assertTrue(Files.exists(theirs.resolve(SpawnSocket.NAME)));
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSocketThatIsListenedOnStays() throws Exception {
        Path directory = Files.createDirectory(parent.resolve("spawn-bot-" + GONE + "-17"));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(directory.resolve(SpawnSocket.NAME)));

            assertEquals(0, StaleSpawns.sweep(parent));

            assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
        }
    }

    @Test
    void anotherUidsDirectoryStays() throws Exception {
        Path directory = leftBy(GONE);
        Files.setAttribute(directory, "unix:uid", 65534);

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
    }

    @Test
    void aDirectoryHoldingMoreThanTheSocketStays() throws Exception {
        Path directory = leftBy(GONE);
        Files.writeString(directory.resolve("notes.txt"), "not the relay's");

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
        assertTrue(Files.exists(directory.resolve("notes.txt")));
    }

    /** A link with a stale name is not followed: what it points at (a live spawn's socket) stays. */
    @Test
    void aLinkIsNeverFollowed() throws Exception {
        Path victim = leftBy(StaleSpawns.self());
        Path link = Files.createSymbolicLink(parent.resolve("spawn-bot-" + GONE + "-99"), victim);

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.isSymbolicLink(link));
        assertTrue(Files.exists(victim.resolve(SpawnSocket.NAME)));
    }
}
