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
    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path parent;

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "none",
            value = {
                "spawn-bot-3f.co-0123abcd, 123.456",
                "spawn-a-b.c-16.7-00000001, 42.7",
                "spawn--1.2-zzzzzzzz, 1.2",
                "spawn-bot-3f-0123abcd, none",
                "spawn-bot-3f.co-, none",
                "spawn-bot-3f.co-789, none",
                "spawn-bot-X.co-0123abcd, none",
                "junit-3f.co-0123abcd, none",
            })
    void theMakerIsReadFromTheName(String name, String maker) {
        assertEquals(Optional.ofNullable(maker), StaleSpawns.maker(name));
    }

    @Test
    void aFreshNameIsReadBackAsThisRelays() {
        assertEquals(Optional.of(StaleSpawns.self()), StaleSpawns.maker(StaleSpawns.freshName("bot")));
        assertTrue(StaleSpawns.freshName("x").length() <= "spawn-x-".length() + 8 + 1 + 13 + 1 + 8);
    }

    /** A directory as a relay leaves it: the socket file in it, nothing listening. */
    private Path leftBy(long pid, long start) throws Exception {
        Path directory = Files.createDirectory(parent.resolve(StaleSpawns.name("bot", pid, start, 17)));
        Path socket = directory.resolve(SpawnSocket.NAME);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));
        return directory;
    }

    @Test
    void aDirectoryWhoseRelayIsGoneIsRemoved() throws Exception {
        Path directory = leftBy(PID, 1);

        assertEquals(1, StaleSpawns.sweep(parent));

        assertFalse(Files.exists(directory));
    }

    @Test
    void aLiveRelaysDirectoryStays() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            Path mine = leftBy(PID, StaleSpawns.startTime(PID).orElseThrow());
            Path theirs = leftBy(other.pid(), StaleSpawns.startTime(other.pid()).orElseThrow());

            assertEquals(0, StaleSpawns.sweep(parent));

            assertTrue(Files.exists(mine.resolve(SpawnSocket.NAME)));
            assertTrue(Files.exists(theirs.resolve(SpawnSocket.NAME)));
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSocketThatIsListenedOnStays() throws Exception {
        Path directory = Files.createDirectory(parent.resolve(StaleSpawns.name("bot", PID, 1, 17)));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(directory.resolve(SpawnSocket.NAME)));

            assertEquals(0, StaleSpawns.sweep(parent));

            assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
        }
    }

    @Test
    void anotherUidsDirectoryStays() throws Exception {
        Path directory = leftBy(PID, 1);
        Files.setAttribute(directory, "unix:uid", 65534);

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
    }

    @Test
    void aDirectoryHoldingMoreThanTheSocketStays() throws Exception {
        Path directory = leftBy(PID, 1);
        Files.writeString(directory.resolve("notes.txt"), "not the relay's");

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.exists(directory.resolve(SpawnSocket.NAME)));
        assertTrue(Files.exists(directory.resolve("notes.txt")));
    }

    /** A link with a stale name is not followed: what it points at (a live spawn's socket) stays. */
    @Test
    void aLinkIsNeverFollowed() throws Exception {
        Path victim = leftBy(PID, StaleSpawns.startTime(PID).orElseThrow());
        Path link = Files.createSymbolicLink(parent.resolve(StaleSpawns.name("bot", PID, 1, 99)), victim);

        assertEquals(0, StaleSpawns.sweep(parent));

        assertTrue(Files.isSymbolicLink(link));
        assertTrue(Files.exists(victim.resolve(SpawnSocket.NAME)));
    }
}
