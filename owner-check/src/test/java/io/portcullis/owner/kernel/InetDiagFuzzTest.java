package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Any netlink datagram gives listeners on the asked port or an IOException, nothing else. */
class InetDiagFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(byte[] datagram) {
        if (datagram == null) {
            return;
        }
        List<TcpListener> found = new ArrayList<>();
        try {
            InetDiag.parse(ByteBuffer.wrap(datagram), 1, 8080, found);
        } catch (IOException refused) {
            assertTrue(
                    refused.getMessage().startsWith("sock_diag: ")
                            || refused.getMessage().startsWith("address"),
                    refused.getMessage());
        }
        assertTrue(found.stream().allMatch(l -> l.port() == 8080));
    }
}
