package io.portcullis.owner.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which published ports answer which target. */
class ContainerInfoTest {

    @ParameterizedTest(name = "{0}:{1}/{2} for {3}:{4} -> {5}")
    @CsvSource({
        "127.0.0.1, 8080, tcp, 127.0.0.1, 8080, true",
        "127.0.0.1, 8080, tcp, 127.0.0.2, 8080, false",
        "127.0.0.1, 8080, tcp, 127.0.0.1, 8081, false",
        "127.0.0.1, 8080, udp, 127.0.0.1, 8080, false",
        "0.0.0.0,   8080, tcp, 127.0.0.1, 8080, true",
        "0.0.0.0,   8080, tcp, ::1,       8080, false",
        "::,        8080, tcp, ::1,       8080, true",
        "::,        8080, tcp, 127.0.0.1, 8080, false",
        "::1,       8080, tcp, ::1,       8080, true",
        "-,         8080, tcp, 10.0.0.1,  8080, true",
    })
    void publishes(String hostIp, int port, String protocol, String target, int targetPort, boolean answers) {
        Optional<InetAddress> ip = hostIp.equals("-") ? Optional.empty() : Optional.of(InetAddress.ofLiteral(hostIp));
        ContainerInfo c = new ContainerInfo(
                "c1", "web", Map.of(), List.of(new ContainerInfo.Published(ip, port, protocol)), Set.of());
        assertEquals(answers, c.publishes(InetAddress.ofLiteral(target), targetPort));
    }
}
