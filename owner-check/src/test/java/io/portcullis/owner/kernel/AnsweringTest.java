package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which listener shapes could answer which target (SPEC R30). */
class AnsweringTest {
    private static final int LO = 1;
    private static final int ETH = 2;

    @ParameterizedTest(name = "{0} {1} v6only={3} dev={4} for {5} -> {6}")
    @CsvSource({
        // family, bound, mapped, v6only, ifindex, target, answers
        "INET,  127.0.0.1, false, false, 0,   127.0.0.1, true",
        "INET,  127.0.0.1, false, false, 0,   127.0.0.2, false",
        "INET,  0.0.0.0,   false, false, 0,   127.0.0.2, true",
        "INET,  0.0.0.0,   false, false, 0,   ::1,       false",
        "INET,  0.0.0.0,   false, false, 1,   127.0.0.1, true",
        "INET,  0.0.0.0,   false, false, 2,   127.0.0.1, false",
        "INET6, ::,        false, false, 0,   127.0.0.1, true",
        "INET6, ::,        false, true,  0,   127.0.0.1, false",
        "INET6, ::,        false, true,  0,   ::1,       true",
        "INET6, ::,        false, false, 0,   ::1,       true",
        "INET6, ::1,       false, true,  0,   ::1,       true",
        "INET6, ::1,       false, false, 0,   127.0.0.1, false",
        "INET6, 127.0.0.1, true,  false, 0,   127.0.0.1, true",
        "INET6, 127.0.0.1, true,  false, 0,   127.0.0.2, false",
        "INET6, 127.0.0.1, true,  false, 0,   ::1,       false",
        "INET6, 0.0.0.0,   true,  false, 0,   127.0.0.9, true",
        "INET6, ::,        false, false, 2,   ::1,       false",
        "INET,  10.0.0.5,  false, false, 0,   10.0.0.5,  true",
    })
    void decides(
            TcpListener.Family family,
            String bound,
            boolean mapped,
            boolean v6Only,
            int ifindex,
            String target,
            boolean answers) {
        TcpListener listener = new TcpListener(
                family,
                InetAddress.ofLiteral(bound),
                mapped,
                80,
                0,
                1,
                v6Only,
                ifindex == 1 ? LO : ifindex == 2 ? ETH : 0);
        List<TcpListener> found = Answering.answering(List.of(listener), InetAddress.ofLiteral(target), LO);
        assertEquals(answers, found.equals(List.of(listener)));
    }
}
