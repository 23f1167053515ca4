package io.portcullis.owner.docker;

import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The subnets of this host's Docker bridges, read from its interfaces: Docker's default bridge
 * {@code docker0} and a user-defined bridge network's {@code br-<12 hex>}. They stay while Docker
 * is down, so they mark container space even before Docker has ever answered.
 */
final class BridgeInterfaces {
    private static final Pattern BRIDGE = Pattern.compile("docker0|br-[0-9a-f]{12}");

    private BridgeInterfaces() {}

    /** The subnets of every Docker bridge interface now; empty when the interfaces cannot be read. */
    static List<DockerNetworks.Block> read() {
        List<DockerNetworks.Block> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!isDockerBridge(nic.getName())) {
                    continue;
                }
                for (InterfaceAddress a : nic.getInterfaceAddresses()) {
                    if (!a.getAddress().isLinkLocalAddress()) {
                        out.add(new DockerNetworks.Block(a.getAddress(), a.getNetworkPrefixLength()));
                    }
                }
            }
        } catch (SocketException | RuntimeException e) {
            // Keep what the Docker view knows; the next refresh reads them again.
        }
        return out;
    }

    static boolean isDockerBridge(String name) {
        return BRIDGE.matcher(name).matches();
    }
}
