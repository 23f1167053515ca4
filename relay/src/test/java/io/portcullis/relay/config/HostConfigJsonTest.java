package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.portcullis.owner.OwnerConfig;
import io.portcullis.relay.policy.Cidr;
import io.portcullis.relay.policy.DenyList;
import io.portcullis.relay.policy.HostConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostConfigJsonTest {

    @Test
    void emptyMeansEveryDefault() throws ConfigException {
        assertEquals(HostConfig.DEFAULTS, HostConfigJson.parse("t", "{}"));
        assertEquals(
                List.of("169.254.169.254/32", "169.254.170.2/32", "100.100.100.200/32", "fd00:ec2::254/128"),
                DenyList.DEFAULT.blocks().stream().map(Cidr::toString).toList());
        HostConfig.Limits limits = HostConfig.DEFAULTS.limits();
        assertEquals(
                List.of(8192, 512, 16_384, 1_048_576),
                List.of(
                        limits.headerBytes(),
                        limits.spawnConnections(),
                        limits.relayConnections(),
                        limits.doorBodyBytes()));
        assertEquals(
                List.of(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofMinutes(15)),
                List.of(limits.headerTimeout(), limits.connectTimeout(), limits.idleTimeout()));
        assertEquals(Duration.ofSeconds(5), HostConfig.DEFAULTS.dns().timeout());
        assertEquals(Duration.ofSeconds(1), HostConfig.DEFAULTS.owner().cacheWindow());
        assertFalse(HostConfig.DEFAULTS.handoff().allowSharedPidNamespace(), "refused unless the operator says so");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {}                                                | false
            {"handoff": {}}                                   | false
            {"handoff": {"allowSharedPidNamespace": false}}   | false
            {"handoff": {"allowSharedPidNamespace": true}}    | true
            """)
    void readsWhetherAnEntryMayShareTheRelaysPidNamespace(String json, boolean allowed) throws ConfigException {
        assertEquals(allowed, HostConfigJson.parse("t", json).handoff().allowSharedPidNamespace());
    }

    @ParameterizedTest(name = "{0} -> gatewayUid {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{}                                        | 1000",
                "{\"owner\": {}}                           | 1000",
                "{\"owner\": {\"cacheMillis\": 5}}         | 1000",
                "{\"owner\": {\"gatewayUid\": 4100}}       | 4100",
                "{\"owner\": {\"gatewayUid\": -1}}         | -1",
            })
    void whatTheFileLeavesOutComesFromTheDefaultsGiven(String json, int gatewayUid) throws ConfigException {
        HostConfig defaults = HostConfig.DEFAULTS.withOwner(OwnerConfig.DEFAULTS.withGateway(1000, 0));
        HostConfig host = HostConfigJson.parse("t", json, defaults);
        assertEquals(gatewayUid, host.owner().gatewayUid());
        assertEquals(HostConfig.DEFAULTS.limits(), host.limits());
        assertEquals(HostConfig.DEFAULTS.denyList(), host.denyList());
    }

    @Test
    void readsEveryField() throws Exception {
        HostConfig host = HostConfigJson.parse("t", """
                {"denyList": ["10.0.0.0/8", "fd00::/8"], "ownNames": ["Gate.Example.", "bücher.example"],
                 "ownAddresses": ["203.0.113.7", "2001:DB8::7"],
                 "dns": {"servers": ["127.0.0.53:53", "[::1]:5353"], "timeoutMillis": 700},
                 "owner": {"gatewayUid": 1000, "gatewayPort": 18789, "roots": ["/home/gw", "/srv/gw"],
                           "signatures": [{"name": "gateway", "argv": ".*gateway\\\\.js", "exe": "/usr/bin/node"}],
                           "addons": ["studio", "kiosk"], "bundleDirs": ["/srv/bundles"],
                           "exceptions": {"studio": ["shared-db"]}, "docker": "unix:///run/docker.sock", "cacheMillis": 250},
                 "limits": {"headerBytes": 4096, "headerTimeoutMillis": 2000, "connectTimeoutMillis": 3000,
                            "idleTimeoutMillis": 60000, "spawnConnections": 8, "relayConnections": 64, "doorBodyBytes": 1024},
                 "log": {"file": "/var/log/portcullis.jsonl"}}""");
        assertEquals(
                List.of("10.0.0.0/8", "fd00::/8"),
                host.denyList().blocks().stream().map(Cidr::toString).toList());
        assertEquals(List.of("gate.example", "xn--bcher-kva.example"), host.ownNames());
        assertEquals(
                List.of(InetAddress.getByName("203.0.113.7"), InetAddress.getByName("2001:db8::7")),
                host.ownAddresses());
        assertEquals(
                new HostConfig.Dns(
                        List.of(
                                new InetSocketAddress(InetAddress.getByName("127.0.0.53"), 53),
                                new InetSocketAddress(InetAddress.getByName("::1"), 5353)),
                        Duration.ofMillis(700)),
                host.dns());
        OwnerConfig owner = host.owner();
        assertEquals(1000, owner.gatewayUid());
        assertEquals(18789, owner.gatewayPort());
        assertEquals(List.of(Path.of("/home/gw"), Path.of("/srv/gw")), owner.roots());
        assertEquals(
                ".*gateway\\.js", owner.signatures().get(0).argv().orElseThrow().pattern());
        assertEquals(Set.of("studio", "kiosk"), owner.addons());
        assertEquals(Map.of("studio", Set.of("shared-db")), owner.exceptions());
        assertEquals("unix:///run/docker.sock", owner.dockerEndpoint());
        assertEquals(Duration.ofMillis(250), owner.cacheWindow());
        assertEquals(
                new HostConfig.Limits(
                        4096, Duration.ofMillis(2000), Duration.ofMillis(3000), Duration.ofMillis(60000), 8, 64, 1024),
                host.limits());
        assertEquals(
                Optional.of(Path.of("/var/log/portcullis.jsonl")), host.log().file());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {"deny": []}                                  | deny: unknown field (expected: one of denyList, ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff)
            {"denyList": "10.0.0.0/8"}                    | denyList: "10.0.0.0/8" (expected: an array)
            {"denyList": ["10.0.0.1/8"]}                  | denyList[0]: "10.0.0.1/8" (expected: host bits zero)
            {"denyList": ["10.0.0.0/33"]}                 | denyList[0]: "10.0.0.0/33" (expected: address/prefix, e.g. 10.0.0.0/8 or fd00::/8)
            {"denyList": [8]}                             | denyList[0]: 8 (expected: a string)
            {"ownNames": ["*.example"]}                   | ownNames[0]: "*.example" (expected: one exact DNS name, e.g. gate.example)
            {"ownNames": ["1.2.3.4"]}                     | ownNames[0]: "1.2.3.4" (expected: a DNS name; addresses go in ownAddresses)
            {"ownAddresses": ["10.0.0.0/8"]}              | ownAddresses[0]: "10.0.0.0/8" (expected: one address, no prefix)
            {"ownAddresses": ["gate.example"]}            | ownAddresses[0]: "gate.example" (expected: address/prefix, e.g. 10.0.0.0/8 or fd00::/8)
            {"dns": {"servers": ["127.0.0.53"]}}          | dns.servers[0]: "127.0.0.53" (expected: ip:port, e.g. 127.0.0.53:53 or [::1]:53)
            {"dns": {"servers": ["ns.example:53"]}}       | dns.servers[0]: "ns.example:53" (expected: ip:port, e.g. 127.0.0.53:53 or [::1]:53)
            {"dns": {"timeoutMillis": 0}}                 | dns.timeoutMillis: 0 (expected: an integer 1-86400000)
            {"dns": {"timeout": 5}}                       | dns.timeout: unknown field (expected: one of servers, timeoutMillis, uids)
            {"dns": {"uids": []}}                         | dns.uids: [] (expected: at least one uid, e.g. [0, 991])
            {"dns": {"uids": 991}}                        | dns.uids: 991 (expected: an array)
            {"dns": {"uids": [991, -1]}}                  | dns.uids[1]: -1 (expected: a uid 0-4294967294)
            {"dns": {"uids": ["991"]}}                    | dns.uids[0]: "991" (expected: a uid 0-4294967294)
            {"dns": {"uids": [4294967295]}}               | dns.uids[0]: 4294967295 (expected: a uid 0-4294967294)
            {"dns": {"uids": [991, 991]}}                 | dns.uids[1]: 991 (expected: each uid once)
            {"owner": {"gatewayPort": 70000}}             | owner.gatewayPort: 70000 (expected: an integer 0-65535)
            {"owner": {"gatewayUid": "1000"}}             | owner.gatewayUid: "1000" (expected: an integer -1-4294967294)
            {"owner": {"roots": ["relative"]}}            | owner.roots[0]: "relative" (expected: an absolute path)
            {"owner": {"signatures": [{"name": "x"}]}}    | owner.signatures[0]: {"name":"x"} (expected: an argv or exe pattern, or both)
            {"owner": {"signatures": [{"name": "x", "argv": "("}]}} | owner.signatures[0].argv: "(" (expected: a Java regular expression: Unclosed group)
            {"owner": {"signatures": [{"argv": "x"}]}}    | owner.signatures[0].name: missing (expected: a string)
            {"owner": {"addons": ["a", "a"]}}             | owner.addons[1]: "a" (expected: each value once)
            {"owner": {"addons": ["a b"]}}                | owner.addons[0]: "a b" (expected: an add-on id of letters, digits, '.', '_' or '-')
            {"owner": {"exceptions": {"a": "b"}}}         | owner.exceptions.a: "b" (expected: an array)
            {"owner": {"exceptions": []}}                 | owner.exceptions: [] (expected: an object)
            {"owner": {"docker": "/var/run/docker.sock"}} | owner.docker: "/var/run/docker.sock" (expected: unix:///path/to/docker.sock or tcp://host:port)
            {"owner": {"cacheMillis": -1}}                | owner.cacheMillis: -1 (expected: an integer 0-60000)
            {"limits": {"headerBytes": 10}}               | limits.headerBytes: 10 (expected: an integer 256-1048576)
            {"limits": {"spawnConnections": 0}}           | limits.spawnConnections: 0 (expected: an integer 1-1000000)
            {"limits": {"doorBodyBytes": 0}}              | limits.doorBodyBytes: 0 (expected: an integer 1-1073741824)
            {"limits": {"idleTimeoutMillis": 1.5}}        | limits.idleTimeoutMillis: 1.5 (expected: an integer 1-86400000)
            {"log": {"file": "relative.log"}}             | log.file: "relative.log" (expected: an absolute path)
            {"log": {"file": null}}                       | log.file: null (expected: a string)
            {"log": {"sink": "x"}}                        | log.sink: unknown field (expected: one of file)
            {"handoff": {"allowSharedPidNamespace": "yes"}} | handoff.allowSharedPidNamespace: "yes" (expected: true or false)
            {"handoff": {"sharedPids": true}}             | handoff.sharedPids: unknown field (expected: one of allowSharedPidNamespace)
            """)
    void oneProblem(String json, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> HostConfigJson.parse("t", json));
        assertEquals(List.of(problem), e.problems());
    }
}
