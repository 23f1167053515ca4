package io.portcullis.relay.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.relay.address.Literals;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.FirstBytes;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure rules on given addresses: no DNS, no owner check. */
class RulesTest {

    static SpawnPolicy spawn(String network, String entry) throws ConfigException {
        return SpawnPolicyJson.parse(
                "spawn",
                "{\"id\": \"s\", \"network\": \"" + network + "\", \"hosts\": [{\"target\": \"" + entry
                        + "\", \"scheme\": \"https\"}]}");
    }

    static HostConfig host(String denyList) throws ConfigException {
        return HostConfigJson.parse("host", "{\"denyList\": [\"" + denyList + "\"]}");
    }

    /** The code of the verdict, {@code allow}, or {@code resolve} when the plan still needs DNS. */
    static String code(Step step) {
        return switch (step) {
            case Step.Decided decided ->
                decided.verdict() instanceof Verdict.Deny deny ? deny.code().code() : "allow";
            case Step.Resolve resolve -> "resolve";
            case Step.AskOwner ask -> "ask-owner";
        };
    }

    /**
     * A deny list written in mapped form blocks the IPv4 addresses it maps, and a mapped or
     * compatible address is matched as its IPv4 address (R14): {@code ::ffff:10.0.0.0/104} did not
     * block 10.1.2.3.
     */
    @ParameterizedTest(name = "{0}: deny {1}, address {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            listed   | ::ffff:10.0.0.0/104     | 10.1.2.3            | deny-listed
            listed   | 10.0.0.0/8              | 10.1.2.3            | deny-listed
            listed   | ::ffff:10.0.0.0/104     | ::ffff:10.1.2.3     | deny-listed
            listed   | 10.0.0.0/8              | ::ffff:10.1.2.3     | deny-listed
            listed   | 10.0.0.0/8              | ::10.1.2.3          | deny-listed
            listed   | ::ffff:10.0.0.0/104     | ::10.1.2.3          | deny-listed
            listed   | ::ffff:10.0.0.0/104     | 11.0.0.1            | allow
            listed   | ::ffff:10.0.0.0/104     | ::ffff:11.0.0.1     | allow
            listed   | ::ffff:169.254.169.254  | 169.254.169.254     | deny-listed
            listed   | ::ffff:0:0/96           | 192.0.2.1           | deny-listed
            listed   | ::ffff:0:0/96           | 2001:db8::1         | allow
            listed   | ::10.0.0.0/104          | ::10.1.2.3          | deny-listed
            internet | ::ffff:93.184.216.0/120 | 93.184.216.34       | deny-listed
            internet | 93.184.216.0/24         | ::ffff:93.184.216.34 | not-global-unicast
            internet | ::ffff:93.184.216.0/120 | 93.184.217.34       | allow
            """)
    void mappedDenyListEntriesAreIpv4Blocks(String network, String deny, String address, String code)
            throws ConfigException {
        // Listed: db.example is the entry; internet: it is not, so the shape judges it.
        SpawnPolicy spawn = spawn(network, network.equals("listed") ? "db.example:443" : "other.example:443");
        Rules rules = new Rules(host(deny));
        Step plan = rules.plan(spawn, Request.connect("db.example:443"));
        Step judged = rules.onAddresses(spawn, (Step.Resolve) plan, List.of(literal(address)), OwnAddresses.NONE);
        assertEquals(code, code(judged));
    }

    /**
     * Entries and requests share one canonical form under UTS #46 (R7): under IDNA2003 an entry
     * {@code faß.example} matched {@code fass.example} and refused {@code xn--fa-hia.example}.
     */
    @ParameterizedTest(name = "entry {0}, request {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            faß.example:443        | xn--fa-hia.example:443   | resolve
            faß.example:443        | FAß.Example.:443         | resolve
            faß.example:443        | faß.example:443          | resolve
            faß.example:443        | fass.example:443         | not-listed
            xn--fa-hia.example:443 | faß.example:443          | resolve
            fass.example:443       | faß.example:443          | not-listed
            fass.example:443       | fa\u200Bss.example:443   | bad-request
            fass.example:443       | \uFEFFfass.example:443   | bad-request
            """)
    void namesUnderUts46(String entry, String request, String code) throws ConfigException {
        SpawnPolicy spawn = spawn("listed", entry);
        assertEquals(code, code(new Rules(HostConfig.DEFAULTS).plan(spawn, Request.connect(request))));
    }

    /** Own addresses treat a mapped address as its IPv4 address, both ways (R14, R15). */
    @ParameterizedTest(name = "own {0} holds {1} -> {2}")
    @CsvSource({
        "203.0.113.7, ::ffff:203.0.113.7, true",
        "::ffff:203.0.113.7, 203.0.113.7, true",
        "::ffff:203.0.113.7, ::ffff:203.0.113.7, true",
        "203.0.113.7, ::203.0.113.7, true",
        "203.0.113.7, 203.0.113.8, false",
        "203.0.113.7, ::ffff:203.0.113.8, false",
        "2001:db8::7, 2001:db8::7, true",
    })
    void ownAddressesAreMappedAware(String own, String address, boolean expected) {
        assertEquals(expected, new OwnAddresses(Set.of(literal(own))).contains(literal(address)));
    }

    static InetAddress literal(String text) {
        return Literals.ipv4(text)
                .<InetAddress>map(v4 -> v4)
                .orElseGet(() -> Literals.ipv6(text).orElseThrow());
    }

    /**
     * What an allowed tunnel must carry first (R23): a ClientHello naming the CONNECT host on the
     * internet shape and for a listed https entry, none for an IP literal, anything for tcp and
     * for a forward.
     */
    @ParameterizedTest(name = "{0} {1} {2} {3} -> {4}")
    @CsvSource(delimiter = '|', textBlock = """
            internet | https | other.example:443 | CONNECT www.example:443 | www.example
            internet | https | other.example:443 | CONNECT 93.184.216.34:443 | (none)
            internet | https | other.example:443 | CONNECT [2001:4860::1]:443 | (none)
            listed   | https | db.example:5432   | CONNECT db.example:5432 | db.example
            listed   | https | DB.Example.:5432  | CONNECT db.example:5432 | db.example
            listed   | tcp   | db.example:5432   | CONNECT db.example:5432 | any
            internet | tcp   | 93.184.216.34:443 | CONNECT 93.184.216.34:443 | any
            listed   | https | 127.0.0.1:8443    | forward 8443 | any
            """)
    void whatATunnelMustCarryFirst(String network, String scheme, String entry, String request, String first)
            throws ConfigException {
        SpawnPolicy spawn = SpawnPolicyJson.parse(
                "spawn",
                "{\"id\": \"s\", \"network\": \"" + network + "\", \"hosts\": [{\"target\": \"" + entry
                        + "\", \"scheme\": \"" + scheme + "\"}]}");
        Rules rules = new Rules(HostConfig.DEFAULTS);
        String[] words = request.split(" ");
        Request asked =
                words[0].equals("forward") ? Request.forward(Integer.parseInt(words[1])) : Request.connect(words[1]);
        Step.Resolve plan = (Step.Resolve) rules.plan(spawn, asked);
        List<InetAddress> addresses = plan.needsDns() ? List.of(literal("93.184.216.34")) : plan.literal();
        Step judged = rules.onAddresses(spawn, plan, addresses, OwnAddresses.NONE);
        Verdict.Allow allow =
                (Verdict.Allow) (judged instanceof Step.AskOwner ask ? ask.allow() : ((Step.Decided) judged).verdict());
        String shown = !allow.first().clientHello()
                ? "any"
                : allow.first().serverName().orElse("(none)");
        assertEquals(first, shown);
    }

    @ParameterizedTest(name = "wants {0}, sent {1} -> {2}")
    @CsvSource(
            nullValues = "-",
            value = {
                "www.example, www.example, true",
                "www.example, WWW.Example, true",
                "www.example, www.example., true",
                "www.example., www.example, true",
                "www.example, other.example, false",
                "www.example, -, false",
                "-, www.example, false",
                "-, -, true",
                "xn--fa-hia.example, xn--fa-hia.example, true",
                "xn--fa-hia.example, fass.example, false",
            })
    void aClientHelloNamesExactlyTheHost(String wanted, String sent, boolean accepted) {
        FirstBytes first = new FirstBytes(true, Optional.ofNullable(wanted));
        assertEquals(accepted, first.accepts(Optional.ofNullable(sent)));
    }

    /**
     * The gateway's port is reached over the door only (R13): a forward, a listed entry, a plain
     * HTTP request or a name that resolves to this host, on {@code owner.gatewayPort}, is
     * {@code gateway-port} before any owner check, whoever holds the port. With the example host
     * file (a gateway port, no signature, no root) such a connection used to go to the owner check,
     * which allowed it when the gateway's process was not recognised. A default keeps R12's code.
     */
    @ParameterizedTest(name = "gateway port {0}, entry {1}, {2}, addresses {3} -> {4}")
    @CsvSource(delimiter = '|', textBlock = """
            3000 | 127.0.0.1:3000 tcp owner          | forward 3000           | -                       | gateway-port
            3000 | 127.0.0.1:3000 tcp owner          | connect 127.0.0.1:3000 | -                       | gateway-port
            3000 | localhost:3000 tcp owner          | connect localhost:3000 | -                       | gateway-port
            3000 | 127.0.0.2:3000 https owner        | connect 127.0.0.2:3000 | -                       | gateway-port
            3000 | [::1]:3000 tcp owner              | connect [::1]:3000     | -                       | gateway-port
            3000 | [::ffff:127.0.0.1]:3000 tcp owner | forward 3000           | -                       | gateway-port
            3000 | 0.0.0.0:3000 tcp owner            | connect 0.0.0.0:3000   | -                       | gateway-port
            3000 | localhost:3000 http owner         | http localhost:3000    | -                       | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | 127.0.0.1               | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | ::ffff:127.0.0.1        | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | ::127.0.0.1             | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | 192.168.1.5             | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | ::ffff:192.168.1.5      | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | 192.168.1.9 192.168.1.5 | gateway-port
            3000 | nas.lan:3000 tcp owner            | connect nas.lan:3000   | 192.168.1.9             | allow
            3000 | 127.0.0.1:3001 tcp owner          | forward 3001           | -                       | ask-owner
            0    | 127.0.0.1:3000 tcp owner          | forward 3000           | -                       | ask-owner
            3000 | 127.0.0.1:3000 tcp default        | forward 3000           | -                       | default-gateway-port
            443  | other.example:443 https owner     | connect 127.0.0.1:443  | -                       | not-global-unicast
            """)
    void theGatewayPortIsReachedThroughTheDoorOnly(
            int gatewayPort, String entry, String request, String resolved, String code) throws ConfigException {
        String[] e = entry.split(" ");
        SpawnPolicy spawn = SpawnPolicyJson.parse(
                "spawn",
                "{\"id\": \"s\", \"network\": \"internet\", \"hosts\": [{\"target\": \"" + e[0] + "\", \"scheme\": \""
                        + e[1] + "\", \"source\": \"" + e[2] + "\"}]}");
        Rules rules = new Rules(HostConfigJson.parse("host", "{\"owner\": {\"gatewayPort\": " + gatewayPort + "}}"));
        String[] words = request.split(" ");
        Request asked = switch (words[0]) {
            case "forward" -> Request.forward(Integer.parseInt(words[1]));
            case "http" -> Request.http(words[1]);
            default -> Request.connect(words[1]);
        };
        Step plan = rules.plan(spawn, asked);
        if (plan instanceof Step.Resolve resolve) {
            List<InetAddress> addresses = resolve.needsDns()
                    ? Arrays.stream(resolved.split(" ")).map(RulesTest::literal).toList()
                    : resolve.literal();
            plan = rules.onAddresses(spawn, resolve, addresses, new OwnAddresses(Set.of(literal("192.168.1.5"))));
        }
        assertEquals(code, code(plan));
    }
}
