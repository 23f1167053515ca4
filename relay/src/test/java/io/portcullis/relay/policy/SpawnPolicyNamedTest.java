package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which entries are reached by name inside the namespace, and on which synthetic address (R24). */
class SpawnPolicyNamedTest {

    private static SpawnPolicy policy(String hosts) {
        List<SpawnPolicy.Entry> entries = new ArrayList<>();
        for (String entry : hosts.split(" ")) {
            String[] parts = entry.split("/");
            entries.add(new SpawnPolicy.Entry(
                    Target.parse(parts[0]),
                    SpawnPolicy.Scheme.valueOf(parts[1].toUpperCase(java.util.Locale.ROOT)),
                    OwnerQuery.Source.OWNER));
        }
        return new SpawnPolicy("s", SpawnPolicy.Network.LISTED, entries, 39080, Optional.empty(), OptionalInt.empty());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "db.lan:5432/tcp                                   | db.lan:5432=127.77.0.1:5432",
                "db.lan:5432/tcp db.lan:6432/tcp git.lan:22/tcp   | db.lan:5432=127.77.0.1:5432 db.lan:6432=127.77.0.1:6432 git.lan:22=127.77.0.2:22",
                "web.lan:443/https db.lan:5432/tcp                 | db.lan:5432=127.77.0.1:5432",
                "web.lan:80/http 127.0.0.1:5000/tcp localhost:6000/tcp | -",
                "[::1]:7000/tcp 192.168.1.5:5432/tcp               | 192.168.1.5:5432=127.77.0.1:5432",
                "b.lan:1/tcp a.lan:1/tcp                           | b.lan:1=127.77.0.1:1 a.lan:1=127.77.0.2:1",
            })
    void aNonLoopbackTcpEntryGetsTheNextAddressOfItsHost(String hosts, String named) {
        String shown = policy(hosts).named().stream()
                .map(n -> n.entry().target() + "=" + n.address().getAddress().getHostAddress() + ":"
                        + n.address().getPort())
                .collect(Collectors.joining(" "));
        assertEquals(named.equals("-") ? "" : named, shown);
    }

    @ParameterizedTest(name = "{0} named entries -> fits {1}")
    @CsvSource({"247, true", "248, false"})
    void everySocketFitsInOneHandOver(int count, boolean fits) {
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < count; i++) {
            hosts.append(i == 0 ? "" : " ").append("h").append(i).append(".lan:5432/tcp");
        }
        if (fits) {
            assertEquals(count, policy(hosts.toString()).named().size());
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy(hosts.toString()));
            assertTrue(e.getMessage().contains("(expected: at most 250)"), e.getMessage());
        }
    }
}
