package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;

/** Any /proc/net/tcp text gives listeners on the asked port or an IOException, nothing else. */
class ProcNetTcpFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void parse(String table) {
        if (table == null) {
            return;
        }
        for (TcpListener.Family family : TcpListener.Family.values()) {
            try {
                assertTrue(ProcNetTcp.parse(table, family, 46001).stream()
                        .allMatch(l -> l.port() == 46001 && l.family() == family));
            } catch (IOException refused) {
                assertTrue(refused.getMessage().startsWith("tcp table line "), refused.getMessage());
            }
        }
    }
}
