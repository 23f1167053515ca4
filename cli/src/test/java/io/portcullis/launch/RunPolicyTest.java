package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunPolicyTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "nas.lan:443, nas.lan:443 https",
        "NAS.lan.:443, nas.lan:443 https",
        "printer.lan:80/http, printer.lan:80 http",
        "printer.lan:443/http, printer.lan:443 http",
        "db.lan:5432, db.lan:5432 tcp",
        "127.0.0.1:5000, 127.0.0.1:5000 tcp forward",
        "[::1]:8080/http, [::1]:8080 http forward",
        "localhost:3000, localhost:3000 tcp forward",
    })
    void anAllowBecomesOneEntry(String allow, String expected) {
        SpawnPolicy.Entry entry = RunPolicy.entry(allow);
        assertEquals(expected, entry.target() + " " + entry.scheme().json() + (entry.isForward() ? " forward" : ""));
        assertEquals(OwnerQuery.Source.OWNER, entry.source());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"true, internet", "false, listed"})
    void internetChoosesTheNetwork(boolean internet, String network) throws ConfigException {
        SpawnPolicy policy = RunPolicy.fromAllows("run-1", internet, List.of("nas.lan:8443"), 1000);
        assertEquals(network, policy.network().json());
        assertEquals(OptionalInt.of(1000), policy.peerUid());
        assertEquals(SpawnPolicy.DEFAULT_PROXY_PORT, policy.proxyPort());
    }

    @Test
    void everyBadAllowIsNamedAtOnce() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RunPolicy.fromAllows(
                        "run-1", false, List.of("*.lan:443", "ok.lan:443", "a@b:443", "nas.lan"), 0));
        assertEquals(3, e.problems().size(), e.problems().toString());
        assertTrue(
                e.problems().stream().allMatch(p -> p.startsWith("--allow: ")),
                e.problems().toString());
        assertTrue(e.problems().getFirst().contains("*.lan:443"), e.problems().toString());
    }

    @Test
    void aTargetAllowedTwiceIsAProblem() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RunPolicy.fromAllows("run-1", false, List.of("nas.lan:443", "NAS.lan:443"), 0));
        assertEquals(List.of("--allow: hosts: nas.lan:443 (expected: each target once)"), e.problems());
    }

    @ParameterizedTest(name = "file peerUid {0} -> {1}")
    @CsvSource({"-1, 1000", "1000, 1000", "0, refused"})
    void aPolicyFileGetsTheCallersUid(int filePeer, String expected) throws ConfigException {
        SpawnPolicy file = new SpawnPolicy(
                "studio",
                SpawnPolicy.Network.LISTED,
                List.of(),
                39080,
                Optional.empty(),
                filePeer < 0 ? OptionalInt.empty() : OptionalInt.of(filePeer));
        if (expected.equals("refused")) {
            ConfigException e = assertThrows(ConfigException.class, () -> RunPolicy.forPeer(file, 1000));
            assertEquals(List.of("peerUid: 0 (expected: absent or 1000, the uid that runs the entry)"), e.problems());
        } else {
            SpawnPolicy bound = RunPolicy.forPeer(file, 1000);
            assertEquals(OptionalInt.of(Integer.parseInt(expected)), bound.peerUid());
            assertEquals(file.id(), bound.id());
        }
    }

    /**
     * Issue 26 (#14): {@code run --spawn FILE} binds the file's policy to the caller's uid and keeps
     * everything else it says, its shadow (SPEC R26) among it: the same policy as the file naming
     * that uid as its peer.
     */
    @Test
    void aPolicyFileKeepsItsShadowAndEverythingElse() throws ConfigException {
        String file = """
                {"id": "studio", "network": "listed", "proxyPort": 39081,
                 "hosts": [{"target": "nas.lan:8443", "scheme": "https"}, {"target": "127.0.0.1:5000", "scheme": "tcp"}],
                 "door": {"port": 3001, "routes": [{"method": "GET", "path": "/state"}],
                          "tokenFile": "/run/wall/studio/door-token", "tokenHeader": "X-Door-Token"},
                 "shadow": {"network": "internet", "hosts": [{"target": "printer.lan:80", "scheme": "http"}]}%s}
                """;
        SpawnPolicy bound = RunPolicy.forPeer(SpawnPolicyJson.parse("file", file.formatted("")), 1000);
        assertEquals(SpawnPolicyJson.parse("file", file.formatted(", \"peerUid\": 1000")), bound);
        assertEquals(SpawnPolicy.Network.INTERNET, bound.shadow().orElseThrow().network());
        assertEquals(OptionalInt.of(1000), bound.shadow().orElseThrow().peerUid());
    }

    @ParameterizedTest(name = "uid {0}, SUDO_UID {1} -> {2}")
    @CsvSource({
        "1000, , 1000",
        "1000, 0, 1000",
        "1000, 1001, 1000",
        "0, , 0",
        "0, 1000, 1000",
        "0, 0, 0",
        "0, -5, 0",
        "0, abc, 0",
        "0, 99999999999, 0",
    })
    void theInvokingUidIsRootsSudoUidOnly(int processUid, String sudoUid, int expected) {
        assertEquals(expected, RunPolicy.invokingUid(processUid, Optional.ofNullable(sudoUid)));
    }

    @Test
    void aRunsHostDefaultsNameTheInvokingUidAsTheGatewaysButNeverRoot() {
        assertEquals(
                HostConfig.DEFAULTS.withOwner(HostConfig.DEFAULTS.owner().withGateway(1000, 0)),
                RunPolicy.hostDefaults(1000));
        assertEquals(HostConfig.DEFAULTS, RunPolicy.hostDefaults(0));
    }
}
