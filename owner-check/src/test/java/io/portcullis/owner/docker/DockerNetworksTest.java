package io.portcullis.owner.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which addresses lie in this host's Docker networks (SPEC R32), as the relay asks. */
class DockerNetworksTest {
    private static final DockerNetworks NETWORKS = new DockerNetworks(
                    List.of(DockerNetworks.Block.parse("172.17.0.0/16"), DockerNetworks.Block.parse("fd00:d0c::/64")))
            .with(List.of(DockerNetworks.Block.of(InetAddress.ofLiteral("10.9.8.7"))));

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "172.17.0.2,        true",
        "172.17.255.255,    true",
        "172.18.0.2,        false",
        "::ffff:172.17.0.2, true",
        "fd00:d0c::5,       true",
        "fd00:d0c:1::5,     false",
        "10.9.8.7,          true",
        "10.9.8.6,          false",
        "127.0.0.1,         false",
    })
    void contains(String address, boolean inside) {
        assertEquals(inside, NETWORKS.contains(kept(address)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"172.17.0.1/16, 172.17.0.0/16", "10.0.0.0/8, 10.0.0.0/8", "fd00:d0c::1/64, fd00:d0c:0:0:0:0:0:0/64"})
    void aSubnetIsKeptWithItsHostBitsCleared(String cidr, String shown) {
        assertEquals(shown, DockerNetworks.Block.parse(cidr).toString());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"172.17.0.0", "172.17.0.0/33", "172.17.0.0/x", "fd00::/129"})
    void aMalformedSubnetIsRefused(String cidr) {
        assertThrows(IllegalArgumentException.class, () -> DockerNetworks.Block.parse(cidr));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"172.17.0.0/16, 1", "garbage, 0", "'', 0"})
    void dockersSubnetsThatDoNotParseAreLeftOut(String cidr, int kept) {
        assertEquals(kept, DockerNetworks.subnets(List.of(cidr)).size());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "docker0,         true",
        "br-0123456789ab, true",
        "br-0123,         false",
        "eth0,            false",
        "docker1,         false",
        "veth12ab,        false",
    })
    void dockerBridgeInterfaces(String name, boolean bridge) {
        assertEquals(bridge, BridgeInterfaces.isDockerBridge(name));
    }

    /** An IPv6 text stays an Inet6Address, even when it carries IPv4, as a resolver may hand it. */
    private static InetAddress kept(String text) {
        InetAddress parsed = InetAddress.ofLiteral(text);
        if (!text.startsWith("::ffff:")) {
            return parsed;
        }
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(parsed.getAddress(), 0, b, 12, 4);
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
