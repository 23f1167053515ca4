package io.portcullis.relay.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyJudgeTest {
    static final String SPAWN = """
            {"id": "studio", "network": "internet", "hosts": [
              {"target": "nas.lan:8443", "scheme": "https"},
              {"target": "printer.lan:80", "scheme": "http"},
              {"target": "127.0.0.1:5000", "scheme": "tcp"},
              {"target": "127.0.0.1:8080", "scheme": "tcp", "source": "default"},
              {"target": "localhost:7000", "scheme": "tcp", "source": "default"},
              {"target": "127.0.0.1:9000", "scheme": "tcp", "source": "default"},
              {"target": "nas.lan:9999", "scheme": "tcp", "source": "default"},
              {"target": "meta.lan:443", "scheme": "https"},
              {"target": "self.lan:443", "scheme": "https"},
              {"target": "mixed.lan:443", "scheme": "https"},
              {"target": "[::ffff:169.254.169.254]:443", "scheme": "https"},
              {"target": "[64:ff9b::a9fe:a9fe]:443", "scheme": "https"},
              {"target": "10.1.2.3:22", "scheme": "tcp"}
            ]}""";
    static final String HOST = """
            {"ownNames": ["myself.example"], "ownAddresses": ["93.184.216.99"],
             "denyList": ["169.254.169.254", "192.168.1.20/32", "fd00:ec2::254"],
             "owner": {"gatewayPort": 9000}}""";

    /** The fake DNS: name to answers; absent names fail. */
    static final Map<String, String> DNS = Map.ofEntries(
            Map.entry("nas.lan", "192.168.1.10"),
            Map.entry("printer.lan", "192.168.1.20"),
            Map.entry("meta.lan", "169.254.169.254"),
            Map.entry("self.lan", "93.184.216.99"),
            Map.entry("mixed.lan", "192.168.1.10 127.0.0.1"),
            Map.entry("public.example", "93.184.216.34 2606:2800:220:1::1"),
            Map.entry("mixed.example", "93.184.216.34 10.0.0.5"),
            Map.entry("v6mixed.example", "2606:2800:220:1::1 fd00::1"),
            Map.entry("mapped.example", "93.184.216.34 ::ffff:93.184.216.34"),
            Map.entry("own.example", "93.184.216.34 93.184.216.99"),
            Map.entry("teredo.example", "2001:0:4136:e378:8000:63bf:a219:27cb"),
            Map.entry("empty.example", ""),
            Map.entry("slow.example", "timeout"));

    final List<String> resolved = new CopyOnWriteArrayList<>();
    final List<OwnerQuery> asked = new CopyOnWriteArrayList<>();

    final Resolver resolver = name -> {
        resolved.add(name);
        String answer = DNS.get(name);
        if (answer == null) {
            return CompletableFuture.completedFuture(Resolution.failed(Resolution.Status.FAILED, name + ": NXDOMAIN"));
        }
        if (answer.equals("timeout")) {
            return CompletableFuture.completedFuture(Resolution.failed(Resolution.Status.TIMEOUT, name + " timed out"));
        }
        if (answer.isEmpty()) {
            return CompletableFuture.completedFuture(Resolution.failed(Resolution.Status.EMPTY, name + " has none"));
        }
        return CompletableFuture.completedFuture(Resolution.resolved(addresses(answer)));
    };

    /** Port 5000 belongs to the add-on; everything else to another user. Evidence: one listener on the port. */
    final OwnerCheck owner = query -> {
        asked.add(query);
        return CompletableFuture.completedFuture(
                query.port() == 5000
                        ? OwnerAnswer.allow("the add-on's own service", evidence(query, 4100))
                        : OwnerAnswer.deny(OwnerCode.OTHER_USER, "uid 1001", evidence(query, 1001)));
    };

    static OwnerEvidence evidence(OwnerQuery query, int uid) {
        return new OwnerEvidence(
                List.of(new OwnerEvidence.Listener(
                        "inet", query.address().getHostAddress(), query.port(), uid, 7, false, "")),
                List.of(),
                null);
    }

    static List<InetAddress> addresses(String spaced) {
        List<InetAddress> out = new ArrayList<>();
        for (String text : spaced.split(" ")) {
            try {
                InetAddress parsed = InetAddress.getByName(text);
                // The JDK turns an IPv4-mapped text into IPv4; a resolver may hand either form.
                out.add(text.contains(":") ? Inet6Address.getByAddress(null, ipv6Bytes(parsed), -1) : parsed);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(text, e);
            }
        }
        return out;
    }

    private static byte[] ipv6Bytes(InetAddress parsed) {
        byte[] b = parsed.getAddress();
        if (b.length == 16) {
            return b;
        }
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        System.arraycopy(b, 0, mapped, 12, 4);
        return mapped;
    }

    Verdict decide(String spawnJson, Request request) throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", spawnJson);
        HostConfig host = HostConfigJson.parse("host", HOST);
        OwnAddresses own = new OwnAddresses(Set.copyOf(host.ownAddresses()));
        return new PolicyJudge(new Rules(host), resolver, () -> own, owner)
                .decide(spawn, request)
                .join();
    }

    static Request request(String kind, String target) {
        return switch (kind) {
            case "CONNECT" -> Request.connect(target);
            case "HTTP" -> Request.http(target);
            case "FORWARD" -> Request.forward(Integer.parseInt(target));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            CONNECT | nas.lan:8443                | allow                 | nas.lan        | 192.168.1.10:8443
            CONNECT | NAS.lan.:8443               | allow                 | nas.lan        | 192.168.1.10:8443
            CONNECT | nas.lan:8444                | port-not-allowed      |                |
            HTTP    | printer.lan:80              | deny-listed           | printer.lan    |
            CONNECT | printer.lan:80              | port-not-allowed      |                |
            HTTP    | nas.lan:8443                | not-listed            |                |
            HTTP    | public.example:443          | not-listed            |                |
            CONNECT | 127.0.0.1:5000              | allow                 |                | 127.0.0.1:5000
            FORWARD | 5000                        | allow                 |                | 127.0.0.1:5000
            FORWARD | 5001                        | not-listed            |                |
            FORWARD | 8080                        | owner-other-user      |                |
            FORWARD | 7000                        | owner-other-user      |                |
            FORWARD | 9000                        | default-gateway-port  |                |
            CONNECT | nas.lan:9999                | default-not-loopback  |                |
            CONNECT | meta.lan:443                | deny-listed           | meta.lan       |
            CONNECT | self.lan:443                | owner-other-user      | self.lan       |
            CONNECT | mixed.lan:443               | owner-other-user      | mixed.lan      |
            CONNECT | [::ffff:169.254.169.254]:443 | deny-listed          |                |
            CONNECT | [64:ff9b::a9fe:a9fe]:443    | deny-listed           |                |
            CONNECT | 10.1.2.3:22                 | allow                 |                | 10.1.2.3:22
            CONNECT | 10.1.2.3:443                | not-global-unicast    |                |
            CONNECT | public.example:443          | allow                 | public.example | 93.184.216.34:443 [2606:2800:220:1::1]:443
            CONNECT | PUBLIC.example.:443         | allow                 | public.example | 93.184.216.34:443 [2606:2800:220:1::1]:443
            CONNECT | public.example:80           | port-not-allowed      |                |
            CONNECT | mixed.example:443           | not-global-unicast    | mixed.example  |
            CONNECT | v6mixed.example:443         | not-global-unicast    | v6mixed.example |
            CONNECT | mapped.example:443          | not-global-unicast    | mapped.example |
            CONNECT | teredo.example:443          | not-global-unicast    | teredo.example |
            CONNECT | own.example:443             | own-address           | own.example    |
            CONNECT | myself.example:443          | own-address           |                |
            CONNECT | MySelf.Example.:443         | own-address           |                |
            CONNECT | 93.184.216.99:443           | own-address           |                |
            CONNECT | 93.184.216.34:443           | allow                 |                | 93.184.216.34:443
            CONNECT | [2606:2800:220:1::1]:443    | allow                 |                | [2606:2800:220:1::1]:443
            CONNECT | 127.0.0.1:443               | not-global-unicast    |                |
            CONNECT | localhost:443               | not-global-unicast    |                |
            CONNECT | [::1]:443                   | not-global-unicast    |                |
            CONNECT | 169.254.169.254:443         | not-global-unicast    |                |
            CONNECT | nx.example:443              | dns-failed            | nx.example     |
            CONNECT | slow.example:443            | dns-timeout           | slow.example   |
            CONNECT | empty.example:443           | dns-empty             | empty.example  |
            CONNECT | a@b:443                     | bad-request           |                |
            CONNECT | 0x7f.1:443                  | bad-request           |                |
            CONNECT | *.example:443               | bad-request           |                |
            """)
    void decides(String kind, String target, String expected, String resolvedName, String dial) throws ConfigException {
        Verdict verdict = decide(SPAWN, request(kind, target));
        assertEquals(expected, outcome(verdict), verdict.toString());
        assertEquals(resolvedName == null ? List.of() : List.of(resolvedName), resolved, "names sent to DNS");
        if (dial != null) {
            assertEquals(Arrays.asList(dial.split(" ")), shown(((Verdict.Allow) verdict).dial()));
        }
    }

    static String outcome(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Allow allow -> "allow";
            case Verdict.Deny deny -> deny.code().code();
        };
    }

    static List<String> shown(List<InetSocketAddress> dial) {
        return dial.stream()
                .map(a -> new Target(Target.text(a.getAddress()), a.getPort(), Optional.of(a.getAddress())).toString())
                .toList();
    }

    @ParameterizedTest(name = "network none: {0} {1} -> mode-none, nothing resolved")
    @CsvSource({
        "CONNECT, nas.lan:8443",
        "CONNECT, public.example:443",
        "HTTP, printer.lan:80",
        "FORWARD, 5000",
        "CONNECT, a@b:443"
    })
    void modeNoneDeniesEverythingUnresolved(String kind, String target) throws ConfigException {
        Verdict verdict = decide(SPAWN.replace("\"internet\"", "\"none\""), request(kind, target));
        assertEquals("mode-none", outcome(verdict));
        assertEquals(List.of(), resolved);
        assertEquals(List.of(), asked);
    }

    @ParameterizedTest(name = "network listed: {0} -> {1}")
    @CsvSource({"public.example:443, not-listed", "nas.lan:8443, allow", "93.184.216.34:443, not-listed"})
    void listedModeHasNoInternetShape(String target, String expected) throws ConfigException {
        Verdict verdict = decide(SPAWN.replace("\"internet\"", "\"listed\""), Request.connect(target));
        assertEquals(expected, outcome(verdict));
    }

    @ParameterizedTest(name = "manifest default {0} -> {1}")
    @CsvSource({
        "127.0.0.1:9000,           default-gateway-port",
        "127.0.0.2:9000,           default-gateway-port",
        "localhost:9000,           default-gateway-port",
        "[::1]:9000,               default-gateway-port",
        "[::ffff:127.0.0.1]:9000,  default-gateway-port",
        "nas.lan:8080,             default-not-loopback",
        "192.168.1.10:80,          default-not-loopback",
        "[2001:db8::1]:80,         default-not-loopback",
        "[::ffff:192.168.1.10]:80, default-not-loopback",
        "93.184.216.99:80,         default-not-loopback",
        "127.0.0.1:5000,           allow",
        "localhost:8080,           owner-other-user",
    })
    void aManifestDefaultIsLoopbackOnlyNeverTheGatewaysPortAndAsksAsADefault(String target, String expected)
            throws ConfigException {
        String spawn = """
                {"id": "studio", "hosts": [{"target": "%s", "scheme": "tcp", "source": "default"}]}""".formatted(target);
        Verdict verdict = decide(spawn, Request.connect(target));
        assertEquals(expected, outcome(verdict), verdict.toString());
        assertEquals(List.of(), resolved, "names sent to DNS");
        assertEquals(expected.startsWith("default-") ? 0 : 1, asked.size(), asked.toString());
        asked.forEach(query -> assertEquals(OwnerQuery.Source.DEFAULT, query.source()));
    }

    @Test
    void ownerIsAskedForEveryOwnAddressWithTheEntrysSource() throws ConfigException {
        decide(SPAWN, Request.forward(8080));
        assertEquals(
                List.of(new OwnerQuery(
                        "studio",
                        OwnerQuery.Source.DEFAULT,
                        addresses("127.0.0.1").get(0),
                        8080)),
                asked);
    }

    @ParameterizedTest(name = "{0} {1} -> owner evidence {2}")
    @CsvSource(delimiter = '|', textBlock = """
            FORWARD | 5000           | 127.0.0.1:5000 uid 4100
            FORWARD | 8080           | 127.0.0.1:8080 uid 1001
            CONNECT | mixed.lan:443  | 127.0.0.1:443 uid 1001
            CONNECT | nas.lan:8443   | none
            FORWARD | 9000           | none
            FORWARD | 5001           | none
            """)
    void theVerdictCarriesTheOwnerEvidenceWhenTheOwnerWasAsked(String kind, String target, String expected)
            throws ConfigException {
        Verdict verdict = decide(SPAWN, request(kind, target));
        assertEquals(
                expected,
                verdict.owner()
                        .map(evidence -> evidence.listeners().stream()
                                .map(l -> l.address() + ":" + l.port() + " uid " + l.uid())
                                .reduce((a, b) -> a + ", " + b)
                                .orElse("[]"))
                        .orElse("none"));
    }

    @Test
    void anAllowOverSeveralOwnAddressesCarriesEveryAnswersEvidence() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", """
                {"id": "studio", "hosts": [{"target": "both.lan:5000", "scheme": "tcp"}]}""");
        HostConfig host = HostConfigJson.parse("host", "{\"ownAddresses\": [\"192.168.1.10\"]}");
        Resolver both =
                name -> CompletableFuture.completedFuture(Resolution.resolved(addresses("127.0.0.1 192.168.1.10")));
        Verdict verdict = new PolicyJudge(
                        new Rules(host), both, () -> new OwnAddresses(Set.copyOf(host.ownAddresses())), owner)
                .decide(spawn, Request.connect("both.lan:5000"))
                .join();
        assertEquals(
                List.of("127.0.0.1", "192.168.1.10"),
                verdict.owner().orElseThrow().listeners().stream()
                        .map(OwnerEvidence.Listener::address)
                        .toList(),
                verdict.toString());
    }

    /**
     * Regression (issue 9, item 1): a listed {@code [::ffff:127.0.0.1]:P} was asked about, and
     * dialed, as IPv6; it is asked about and dialed as {@code 127.0.0.1}, by literal or by name.
     */
    @ParameterizedTest(name = "{0} -> asked about and dialed as {1}")
    @CsvSource({
        "[::ffff:127.0.0.1]:5000, 127.0.0.1",
        "[::127.0.0.1]:5000,      127.0.0.1",
        "mapped.lan:5000,         127.0.0.1",
        "[::1]:5000,              ::1",
    })
    void aTargetCarryingIpv4IsAskedAboutAndDialedAsThatIpv4Address(String target, String judged)
            throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", """
                {"id": "studio", "hosts": [{"target": "%s", "scheme": "tcp"}]}""".formatted(target));
        Resolver mapped = name -> CompletableFuture.completedFuture(Resolution.resolved(addresses("::ffff:127.0.0.1")));
        Verdict verdict = new PolicyJudge(new Rules(HostConfig.DEFAULTS), mapped, () -> OwnAddresses.NONE, owner)
                .decide(spawn, Request.connect(target))
                .join();
        InetAddress expected = InetAddress.ofLiteral(judged);
        assertEquals("allow", outcome(verdict), verdict.toString());
        assertEquals(List.of(expected), asked.stream().map(OwnerQuery::address).toList());
        assertEquals(expected.getClass(), asked.getFirst().address().getClass());
        List<InetAddress> dialed = ((Verdict.Allow) verdict)
                .dial().stream().map(InetSocketAddress::getAddress).toList();
        assertEquals(List.of(expected), dialed);
        assertEquals(expected.getClass(), dialed.getFirst().getClass(), "an Inet4Address, not a mapped Inet6Address");
    }

    /**
     * Regression (issue 9, item 3): a listed container address on a Docker network (not this
     * host's own) never reached the owner check, so it was allowed with Docker down. It is asked
     * about as a container's question, listed or on the internet shape (as a default: the
     * narrowest source); an address outside every Docker network is not.
     */
    @ParameterizedTest(name = "{0} {1} -> {2}, asked {3}")
    @CsvSource(delimiter = '|', textBlock = """
            listed   | 172.17.0.2:80           | owner-docker-down | 172.17.0.2 OWNER false
            listed   | [::ffff:172.17.0.2]:80  | owner-docker-down | 172.17.0.2 OWNER false
            listed   | docker.lan:80           | owner-docker-down | 172.17.0.2 OWNER false
            listed   | 10.1.2.3:80             | allow             | none
            internet | [2a01:4f8:d0c::5]:443   | owner-docker-down | 2a01:4f8:d0c::5 DEFAULT false
            internet | [2606:2800:220:1::1]:443 | allow            | none
            """)
    void anAddressInADockerNetworkGoesToTheOwnerCheck(String mode, String target, String expected, String query)
            throws ConfigException {
        String hosts = mode.equals("listed") ? "{\"target\": \"%s\", \"scheme\": \"tcp\"}".formatted(target) : "";
        SpawnPolicy spawn = SpawnPolicyJson.parse(
                "spawn",
                "{\"id\": \"studio\", \"network\": \"%s\", \"hosts\": [%s]}"
                        .formatted(mode.equals("listed") ? "listed" : "internet", hosts));
        DockerNetworks networks = new DockerNetworks(
                List.of(DockerNetworks.Block.parse("172.17.0.0/16"), DockerNetworks.Block.parse("2a01:4f8:d0c::/64")));
        OwnerCheck dockerDown = new OwnerCheck() {
            @Override
            public CompletableFuture<OwnerAnswer> check(OwnerQuery q) {
                asked.add(q);
                return CompletableFuture.completedFuture(
                        OwnerAnswer.deny(OwnerCode.DOCKER_DOWN, "docker: down", OwnerEvidence.NONE));
            }

            @Override
            public DockerNetworks dockerNetworks() {
                return networks;
            }
        };
        Resolver docker = name -> CompletableFuture.completedFuture(Resolution.resolved(addresses("172.17.0.2")));
        Verdict verdict = new PolicyJudge(new Rules(HostConfig.DEFAULTS), docker, () -> OwnAddresses.NONE, dockerDown)
                .decide(spawn, Request.connect(target))
                .join();
        assertEquals(expected, outcome(verdict), verdict.toString());
        assertEquals(
                query,
                asked.isEmpty()
                        ? "none"
                        : asked.stream()
                                .map(q -> Target.text(q.address()) + " " + q.source() + " " + q.hostOwn())
                                .reduce((a, b) -> a + ", " + b)
                                .orElseThrow());
    }

    @Test
    void aFailingOwnerCheckIsARefusal() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", SPAWN);
        OwnerCheck broken = query -> CompletableFuture.failedFuture(new IllegalStateException("netlink gone"));
        OwnerCheck throwing = query -> {
            throw new IllegalStateException("bug");
        };
        for (OwnerCheck check : List.of(broken, throwing, OwnerCheck.failClosed("not built"))) {
            Verdict verdict = new PolicyJudge(new Rules(HostConfig.DEFAULTS), resolver, () -> OwnAddresses.NONE, check)
                    .decide(spawn, Request.forward(5000))
                    .join();
            assertEquals("owner-error", outcome(verdict), verdict.toString());
        }
    }

    @Test
    void aFailingResolverIsARefusal() throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", SPAWN);
        Resolver broken = name -> CompletableFuture.failedFuture(new IllegalStateException("loop closed"));
        Resolver throwing = name -> {
            throw new IllegalStateException("bug");
        };
        for (Resolver r : List.of(broken, throwing)) {
            Verdict verdict = new PolicyJudge(new Rules(HostConfig.DEFAULTS), r, () -> OwnAddresses.NONE, owner)
                    .decide(spawn, Request.connect("nas.lan:8443"))
                    .join();
            assertInstanceOf(Verdict.Deny.class, verdict);
            assertEquals("internal-error", outcome(verdict), verdict.toString());
        }
    }

    @Test
    void allowCarriesExactlyTheCheckedAddresses() throws ConfigException {
        Verdict.Allow allow = (Verdict.Allow) decide(SPAWN, Request.connect("public.example:443"));
        assertEquals(addresses("93.184.216.34 2606:2800:220:1::1"), allow.resolved());
        assertEquals(
                allow.resolved(),
                allow.dial().stream().map(InetSocketAddress::getAddress).toList());
    }

    /**
     * The shadow policy (R26) is decided on the enforced decision's addresses and never asks DNS
     * itself: a name the enforced policy refused before any lookup is an unknown to the shadow.
     */
    @ParameterizedTest(name = "enforced {0}, shadow {1}: {2} -> {3}, {4}; lookups {5}")
    @CsvSource(delimiter = '|', textBlock = """
            internet | listed   | public.example:443 | allow              | deny not-listed         | public.example
            internet | internet | public.example:443 | allow              | allow                   | public.example
            listed   | internet | public.example:443 | deny not-listed    | unknown                 | -
            internet | listed   | nas.lan:8443       | allow              | deny not-listed         | nas.lan
            internet | internet | mixed.example:443  | deny not-global-unicast | deny not-global-unicast | mixed.example
            internet | internet | gone.example:443   | deny dns-failed    | deny dns-failed         | gone.example
            internet | listed   | gone.example:443   | deny dns-failed    | deny not-listed         | gone.example
            internet | listed   | 93.184.216.34:443  | allow              | deny not-listed         | -
            listed   | internet | 93.184.216.34:443  | deny not-listed    | allow                   | -
            """)
    void theShadowIsDecidedOnTheSameAnswerAndNeverLooksUpANameItself(
            String network, String shadowNetwork, String target, String enforced, String shadow, String lookups)
            throws ConfigException {
        String hosts = network.equals("internet") ? "[{\"target\": \"nas.lan:8443\", \"scheme\": \"https\"}]" : "[]";
        SpawnPolicy spawn = SpawnPolicyJson.parse("spawn", """
                {"id": "s", "network": "%s", "hosts": %s, "shadow": {"network": "%s"}}""".formatted(network, hosts, shadowNetwork));
        HostConfig host = HostConfigJson.parse("host", HOST);
        OwnAddresses own = new OwnAddresses(Set.copyOf(host.ownAddresses()));
        PolicyJudge judge = new PolicyJudge(new Rules(host), resolver, () -> own, owner);

        Verdict verdict = judge.decide(spawn, Request.connect(target)).join();
        Optional<Verdict> said = judge.shadow(spawn.shadow().orElseThrow(), Request.connect(target), verdict)
                .join();

        assertEquals(enforced, shown(verdict));
        assertEquals(shadow, said.map(PolicyJudgeTest::shown).orElse("unknown"));
        assertEquals(
                lookups.equals("-") ? List.of() : List.of(lookups), resolved, "one lookup at most, the enforced one");
    }

    private static String shown(Verdict verdict) {
        return verdict instanceof Verdict.Deny deny ? "deny " + deny.code().code() : "allow";
    }
}
