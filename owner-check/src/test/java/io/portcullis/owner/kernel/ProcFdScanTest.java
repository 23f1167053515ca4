package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.testing.PythonListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inode to processes: real listeners under other uids, and proc trees where a process goes away. */
class ProcFdScanTest {
    private static final int GATEWAY_UID = 4100;
    private final ProcessSource scan = ProcessSource.system(ProcRoot.SYSTEM);

    @Test
    void findsTheListenerProcessWithArgvCwdAndExe() throws IOException {
        Path folder = PythonListener.openFolder("owner-scan");
        try (PythonListener listener = PythonListener.v4("127.0.0.1").uid(GATEWAY_UID).cwd(folder).arg("--marker").start()) {
            TcpListener socket = new SockDiag().listening(listener.port()).getFirst();
            List<ProcessInfo> holders = scan.holding(Set.of(socket.inode()), GATEWAY_UID).get(socket.inode());
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
        assertEquals(Map.of(77L, List.of()), ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L), 0));
    }

    @Test
    void aHolderGoneBeforeItsArgvWasReadFailsTheScan(@TempDir Path root) throws IOException {
        Path fd = Files.createDirectories(root.resolve("42/fd"));
        Files.createSymbolicLink(fd.resolve("3"), Path.of("socket:[77]"));
        IOException e = assertThrows(IOException.class, () -> ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L), 0));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
    }

    @Test
    void aForkingServersShortLivedChildrenDoNotFailTheScan() throws Exception {
        // A server that forks a child per connection: each child holds the listening socket for a
        // moment and exits. Regression: a child seen holding the socket and gone before its argv was
        // read failed the scan (owner-error) although the server itself still answered.
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
        Process process = new ProcessBuilder("setpriv", "--reuid", "" + GATEWAY_UID, "--regid", "" + GATEWAY_UID,
                "--clear-groups", "/usr/bin/python3", "-c", server).redirectErrorStream(true).start();
        try {
            int port = Integer.parseInt(new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII)).readLine().strip());
            long inode = new SockDiag().listening(port).getFirst().inode();
            for (int i = 0; i < 200; i++) {
                List<ProcessInfo> holders = scan.holding(Set.of(inode), GATEWAY_UID).get(inode);
                assertTrue(holders.stream().anyMatch(p -> p.pid() == process.pid()), holders::toString);
            }
        } finally {
            process.destroyForcibly().waitFor();
        }
    }

    @Test
    void readsACapturedHolderAndPutsTheOwnersProcessesFirst(@TempDir Path root) throws IOException {
        fakeProcess(root, 50, 0, 77);
        fakeProcess(root, 60, GATEWAY_UID, 77);
        fakeProcess(root, 70, GATEWAY_UID, 78);
        Map<Long, List<ProcessInfo>> holders = ProcessSource.system(new ProcRoot(root)).holding(Set.of(77L, 78L, 79L), GATEWAY_UID);
        assertEquals(List.of(60L, 50L), holders.get(77L).stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(70L), holders.get(78L).stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(), holders.get(79L));
        assertEquals(List.of("/srv/app/run", "--port=8080"), holders.get(77L).getFirst().argv());
        assertEquals("/srv/app", holders.get(77L).getFirst().cwd());
    }

    private static void fakeProcess(Path root, int pid, int uid, long inode) throws IOException {
        Path dir = Files.createDirectories(root.resolve(Integer.toString(pid)));
        Files.createDirectories(dir.resolve("fd"));
        Files.createSymbolicLink(dir.resolve("fd/0"), Path.of("/dev/null"));
        Files.createSymbolicLink(dir.resolve("fd/5"), Path.of("socket:[" + inode + "]"));
        Files.write(dir.resolve("cmdline"), "/srv/app/run\0--port=8080\0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Files.createSymbolicLink(dir.resolve("cwd"), Path.of("/srv/app"));
        Files.createSymbolicLink(dir.resolve("exe"), Path.of("/srv/app/run"));
        Files.writeString(dir.resolve("status"), "Name:\trun\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n");
    }
}
