package io.portcullis.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The namespace check of a hand-over where the relay may not use SIOCGSKNS (an unprivileged
 * relay): a socket is the peer's namespace's when the peer's own socket table lists it.
 */
@Timeout(30)
class ReceiverNamespaceTest {
    private static final List<String> TABLE = List.of(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
            "   0: 0100007F:9A48 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 48213 1 0",
            "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 731 1 0");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"48213, true", "731, true", "4821, false", "0, false", "inode, false"})
    void aSocketIsListedByItsInodeOnly(String inode, boolean listed) {
        assertEquals(listed, Receiver.listed(TABLE, inode));
    }

    @Test
    void aSocketOfThisNamespaceIsInThisProcesssTableAndNotInAnotherNamespaces() throws Exception {
        assumeTrue(ProcessHandle.current().info().user().orElse("").equals("root"), "needs root for unshare");
        Process other = new ProcessBuilder("unshare", "--net", "sleep", "30").start();
        ExecutorService inside = Executors.newSingleThreadExecutor();
        int here = Posix.listenTcp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        try {
            int there = inside.submit(() -> {
                        waitForNamespace(other.pid());
                        Posix.enterNetworkNamespace("/proc/" + other.pid() + "/ns/net");
                        return Posix.listenTcp(new InetSocketAddress(InetAddress.getByName("::"), 0), 4);
                    })
                    .get(10, TimeUnit.SECONDS);
            long self = ProcessHandle.current().pid();
            try {
                assertTrue(Receiver.inTablesOf(here, self, false));
                assertFalse(Receiver.inTablesOf(there, self, false), "another namespace's socket");
                assertTrue(Receiver.inTablesOf(there, other.pid(), false));
                assertFalse(Receiver.inTablesOf(here, self, true), "not a UDP socket");
            } finally {
                Posix.closeQuietly(there);
            }
        } finally {
            Posix.closeQuietly(here);
            inside.shutdownNow();
            other.destroyForcibly();
        }
    }

    /** unshare(1) makes the namespace, then execs sleep: wait until the pid shows another one. */
    private static void waitForNamespace(long pid) throws Exception {
        Receiver.Namespace own =
                Receiver.Namespace.ofProcess(ProcessHandle.current().pid());
        for (int i = 0; i < 200 && Receiver.Namespace.ofProcess(pid).same(own); i++) {
            Thread.sleep(10);
        }
    }
}
