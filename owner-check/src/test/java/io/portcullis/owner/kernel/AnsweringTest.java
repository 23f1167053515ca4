package io.portcullis.owner.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
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
        "INET, 127.0.0.1, false, OFF, 0, 127.0.0.1, true",
        "INET, 127.0.0.1, false, OFF, 0, 127.0.0.2, false",
        "INET, 0.0.0.0, false, OFF, 0, 127.0.0.2, true",
        "INET, 0.0.0.0, false, OFF, 0, ::1, false",
        "INET, 0.0.0.0, false, OFF, 1, 127.0.0.1, true",
        "INET, 0.0.0.0, false, OFF, 2, 127.0.0.1, false",
        "INET6, ::, false, OFF, 0, 127.0.0.1, true",
        "INET6, ::, false, ON, 0, 127.0.0.1, false",
        "INET6, ::, false, ON, 0, ::1, true",
        "INET6, ::, false, OFF, 0, ::1, true",
        "INET6, ::1, false, ON, 0, ::1, true",
        "INET6, ::1, false, OFF, 0, 127.0.0.1, false",
        "INET6, 127.0.0.1, true, OFF, 0, 127.0.0.1, true",
        "INET6, 127.0.0.1, true, OFF, 0, 127.0.0.2, false",
        "INET6, 127.0.0.1, true, OFF, 0, ::1, false",
        "INET6, 0.0.0.0, true, OFF, 0, 127.0.0.9, true",
        "INET6, ::, false, OFF, 2, ::1, false",
        "INET, 10.0.0.5, false, OFF, 0, 10.0.0.5, true",
        // The /proc fallback cannot read V6ONLY: such a :: may answer IPv4, so it is judged too.
        "INET6, ::, false, UNKNOWN, 0, 127.0.0.1, true",
        "INET6, ::, false, UNKNOWN, 0, ::1, true",
        // An IPv4-mapped or -compatible target is its IPv4 address: a V6ONLY :: never answers it.
        "INET6, ::, false, ON, 0, ::ffff:127.0.0.1, false",
        "INET6, ::, false, OFF, 0, ::ffff:127.0.0.1, true",
        "INET, 127.0.0.1, false, OFF, 0, ::ffff:127.0.0.1, true",
        "INET, 0.0.0.0, false, OFF, 0, ::ffff:127.0.0.1, true",
        "INET6, 127.0.0.1, true, OFF, 0, ::ffff:127.0.0.1, true",
        "INET6, ::1, false, ON, 0, ::ffff:127.0.0.1, false",
        "INET, 127.0.0.1, false, OFF, 0, ::127.0.0.1, true",
        "INET6, ::, false, ON, 0, ::127.0.0.1, false",
    })
    void decides(
            TcpListener.Family family,
            String bound,
            boolean mapped,
            TcpListener.V6Only v6Only,
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
        List<TcpListener> found = Answering.answering(List.of(listener), v6Literal(target), LO);
        assertEquals(answers, found.equals(List.of(listener)));
    }

    /** As the relay hands it over: an IPv6 literal stays an Inet6Address even when it carries IPv4. */
    private static InetAddress v6Literal(String text) {
        InetAddress parsed = InetAddress.ofLiteral(text);
        if (!text.contains(":")) {
            return parsed;
        }
        byte[] b = new byte[16];
        byte[] raw = parsed.getAddress();
        System.arraycopy(raw, 0, b, 16 - raw.length, raw.length);
        if (raw.length == 4 && text.startsWith("::ffff:")) {
            b[10] = (byte) 0xff;
            b[11] = (byte) 0xff;
        }
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0} for {1} -> {2}")
    @CsvSource({
        "ON,      127.0.0.1,        true",
        "OFF,     127.0.0.1,        true",
        "UNKNOWN, 127.0.0.1,        false",
        "UNKNOWN, ::ffff:127.0.0.1, false",
        "UNKNOWN, ::1,              true",
    })
    void aDualStackOfUnreadV6OnlyIsNotSureToAnswerIpv4(TcpListener.V6Only v6Only, String target, boolean surely) {
        TcpListener any =
                new TcpListener(TcpListener.Family.INET6, InetAddress.ofLiteral("::"), false, 80, 0, 1, v6Only, 0);
        assertEquals(surely, Answering.surely(any, v6Literal(target)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "::ffff:127.0.0.1, 127.0.0.1",
        "::ffff:10.1.2.3,  10.1.2.3",
        "::127.0.0.1,      127.0.0.1",
        "::,               ::",
        "::1,              ::1",
        "::ffff:0:0,       0.0.0.0",
        "2001:db8::1,      2001:db8::1",
        "127.0.0.1,        127.0.0.1",
    })
    void aTargetCarryingIpv4IsThatIpv4Address(String target, String judged) {
        assertEquals(InetAddress.ofLiteral(judged), Answering.unmapped(v6Literal(target)));
    }
}
