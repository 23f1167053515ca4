package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.testing.PythonListener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inode to processes: real listeners under other uids, and proc trees where a process goes away. */
class ProcFdScanTest {
    private static final int GATEWAY_UID = 4100;
    private final ProcessSource scan = ProcessSource.system(ProcRoot.SYSTEM);

    @Test
    void findsTheListenerProcessWithArgvCwdAndExe() throws IOException {
        Path folder = PythonListener.openFolder("owner-scan");
        try (PythonListener listener = PythonListener.v4("127.0.0.1")
                .uid(GATEWAY_UID)
                .cwd(folder)
                .arg("--marker")
                .start()) {
            TcpListener socket = new SockDiag().listening(listener.port()).getFirst();
            List<ProcessInfo> holders =
                    scan.holding(Set.of(socket.inode()), GATEWAY_UID).get(socket.inode());
            assertEquals(1, holders.size(), holders::toString);
            ProcessInfo p = holders.getFirst();
            assertEquals(listener.pid(), p.pid());
            assertEquals(GATEWAY_UID, p.uid());
            assertEquals(folder.toString(), p.cwd());
            assertTrue(p.exe().startsWith("/usr/bin/python3"), p.exe());
            assertEquals("--marker", p.argv().getLast());
        }
    }

    @Test
    void anUnheldInodeHasNoProcess() throws IOException {
        assertEquals(Map.of(Long.MAX_VALUE - 1, List.of()), scan.holding(Set.of(Long.MAX_VALUE - 1), GATEWAY_UID));
    }

    @Test
    void aProcessGoneBeforeItsFdsWereReadIsSkipped(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("41"));
        assertEquals(
                Map.of(77L, List.of()), ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L), 0));
    }

    @Test
    void aHolderWhoseDetailsCannotBeReadFailsTheScan(@TempDir Path root) throws IOException {
        Path dir = Files.createDirectories(root.resolve("42"));
        Files.createDirectories(dir.resolve("fd"));
        Files.createSymbolicLink(dir.resolve("fd/3"), Path.of("socket:[77]"));
        Files.writeString(dir.resolve("stat"), stat(42));
        IOException e = assertThrows(
                IOException.class,
                () -> ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L), 0));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
    }

    @Test
    void aHolderGoneWhenItIsConfirmedIsLeftOut(@TempDir Path root) throws IOException {
        fakeProcess(root, 50, 0, 77);
        Files.delete(root.resolve("50/stat"));
        fakeProcess(root, 60, GATEWAY_UID, 77);
        assertEquals(
                List.of(60L),
                ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L), 0).get(77L).stream()
                        .map(ProcessInfo::pid)
                        .toList());
    }

    @Test
    void aForkingServersShortLivedChildrenDoNotFailTheScan() throws Exception {
        // A server that forks a child per connection: each child holds the listening socket for a
        // moment and exits. Regression: a child seen holding the socket and gone before its argv was
        // read failed the scan (owner-error) although the server itself still answered; rescanning
        // up to three times still lost a child in each scan now and then.
        String server = """
                import os, socket, sys, time
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
                print(s.getsockname()[1], flush=True)
                end = time.time() + 20
                while time.time() < end:
                    pid = os.fork()
                    if pid == 0:
                        os._exit(0)
                    os.waitpid(pid, 0)
                """;
        try (GatewayServer gateway = GatewayServer.start(server)) {
            Process process = gateway.process();
            int port = gateway.port();
            long inode = new SockDiag().listening(port).getFirst().inode();
            for (int i = 0; i < 200; i++) {
                List<ProcessInfo> holders =
                        scan.holding(Set.of(inode), GATEWAY_UID).get(inode);
                assertTrue(holders.stream().anyMatch(p -> p.pid() == process.pid()), holders::toString);
            }
        }
    }

    @Test
    void aProcessWhoseMainThreadExitedIsReadThroughALivingThread() throws Exception {
        // The main thread ends with a raw exit(2), the others go on serving: <pid>/fd is empty then,
        // and a scan of it alone would miss a holder that still answers.
        String server = """
                import ctypes, socket, threading, time
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
                threading.Thread(target=lambda: time.sleep(30)).start()
                print(s.getsockname()[1], flush=True)
                ctypes.CDLL(None, use_errno=True).syscall(60, 0)
                """;
        try (GatewayServer gateway = GatewayServer.start(server)) {
            Process process = gateway.process();
            int port = gateway.port();
            Path fds = Path.of("/proc/" + process.pid() + "/fd");
            for (int i = 0; i < 100 && hasEntries(fds); i++) {
                Thread.sleep(20);
            }
            assertFalse(hasEntries(fds), "the main thread did not exit");
            long inode = new SockDiag().listening(port).getFirst().inode();
            List<ProcessInfo> holders = scan.holding(Set.of(inode), GATEWAY_UID).get(inode);
            assertEquals(
                    List.of(process.pid()),
                    holders.stream().map(ProcessInfo::pid).toList(),
                    holders::toString);
            assertEquals(GATEWAY_UID, holders.getFirst().uid());
            assertEquals("/usr/bin/python3", holders.getFirst().argv().getFirst());
        }
    }

    @Test
    void readsACapturedHolderAndPutsTheOwnersProcessesFirst(@TempDir Path root) throws IOException {
        fakeProcess(root, 50, 0, 77);
        fakeProcess(root, 60, GATEWAY_UID, 77);
        fakeProcess(root, 70, GATEWAY_UID, 78);
        Map<Long, List<ProcessInfo>> holders =
                ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L, 78L, 79L), GATEWAY_UID);
        assertEquals(
                List.of(60L, 50L),
                holders.get(77L).stream().map(ProcessInfo::pid).toList());
        assertEquals(
                List.of(70L), holders.get(78L).stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(), holders.get(79L));
        assertEquals(
                List.of("/srv/app/run", "--port=8080"),
                holders.get(77L).getFirst().argv());
        assertEquals("/srv/app", holders.get(77L).getFirst().cwd());
    }

    /** A python3 server run as the gateway's uid; its first line of output is its port. */
    private record GatewayServer(Process process, int port) implements AutoCloseable {
        static GatewayServer start(String script) throws IOException {
            Process process = new ProcessBuilder(
                            "setpriv",
                            "--reuid",
                            "" + GATEWAY_UID,
                            "--regid",
                            "" + GATEWAY_UID,
                            "--clear-groups",
                            "/usr/bin/python3",
                            "-c",
                            script)
                    .redirectErrorStream(true)
                    .start();
            try {
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
                return new GatewayServer(
                        process, Integer.parseInt(out.readLine().strip()));
            } catch (IOException | RuntimeException e) {
                process.destroyForcibly();
                throw e;
            }
        }

        @Override
        public void close() {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean hasEntries(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        }
    }

    private static void fakeProcess(Path root, int pid, int uid, long inode) throws IOException {
        Path dir = Files.createDirectories(root.resolve(Integer.toString(pid)));
        Files.createDirectories(dir.resolve("fd"));
        Files.createSymbolicLink(dir.resolve("fd/0"), Path.of("/dev/null"));
        Files.createSymbolicLink(dir.resolve("fd/5"), Path.of("socket:[" + inode + "]"));
        Files.write(dir.resolve("cmdline"), "/srv/app/run\0--port=8080\0".getBytes(StandardCharsets.UTF_8));
        Files.createSymbolicLink(dir.resolve("cwd"), Path.of("/srv/app"));
        Files.createSymbolicLink(dir.resolve("exe"), Path.of("/srv/app/run"));
        Files.writeString(
                dir.resolve("status"), "Name:\trun\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n");
        Files.writeString(dir.resolve("stat"), stat(pid));
    }

    /** A {@code stat} line as the kernel writes it, with a command name holding a space and a paren. */
    private static String stat(int pid) {
        return pid + " (run (x) y) S 1 " + pid + " " + pid
                + " 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 123456 1000 10\n";
    }
}
