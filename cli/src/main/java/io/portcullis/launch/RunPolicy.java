package io.portcullis.launch;

import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The spawn policy of {@code portcullis run}: from {@code --internet --allow HOST:PORT[/http]...}, or
 * a policy file, bound to the uid that runs the entry. An entry ending in
 * {@code /http} is reached by plain HTTP; otherwise port 443 is {@code https} and any other port
 * {@code tcp}. A loopback entry is also a forward, as in any policy (SPEC R1).
 */
public final class RunPolicy {
    private static final String HTTP_SUFFIX = "/http";

    private RunPolicy() {}

    /**
     * The policy, or every problem of the {@code --allow} values at once.
     *
     * @param peerUid the uid that runs the entry, the only one allowed on the spawn's socket
     */
    public static SpawnPolicy fromAllows(String id, boolean internet, List<String> allows, int peerUid)
            throws ConfigException {
        List<String> problems = new ArrayList<>();
        List<SpawnPolicy.Entry> entries = new ArrayList<>();
        for (String allow : allows) {
            try {
                entries.add(entry(allow));
            } catch (IllegalArgumentException e) {
                problems.add("--allow: " + e.getMessage());
            }
        }
        if (problems.isEmpty()) {
            try {
                return new SpawnPolicy(
                        id,
                        internet ? SpawnPolicy.Network.INTERNET : SpawnPolicy.Network.LISTED,
                        entries,
                        SpawnPolicy.DEFAULT_PROXY_PORT,
                        Optional.empty(),
                        OptionalInt.of(peerUid));
            } catch (IllegalArgumentException e) {
                problems.add("--allow: " + e.getMessage());
            }
        }
        throw new ConfigException("the command line", problems);
    }

    /**
     * {@code policy} with {@code peerUid} as its only peer, and everything else it says kept (its
     * shadow too, SPEC R26). A policy naming another uid is refused: the entry runs as {@code
     * peerUid}, so the relay would close every one of its connections.
     */
    public static SpawnPolicy forPeer(SpawnPolicy policy, int peerUid) throws ConfigException {
        if (policy.peerUid().isPresent() && policy.peerUid().getAsInt() != peerUid) {
            throw new ConfigException(
                    "the spawn policy",
                    List.of("peerUid: " + policy.peerUid().getAsInt() + " (expected: absent or " + peerUid
                            + ", the uid that runs the entry)"));
        }
        return new SpawnPolicy(
                policy.id(),
                policy.network(),
                policy.hosts(),
                policy.proxyPort(),
                policy.door(),
                OptionalInt.of(peerUid),
                policy.shadow().map(shadow -> withPeer(shadow, peerUid)));
    }

    /** {@code policy}, all of it, with {@code peerUid} as its peer: a shadow's peer is its policy's. */
    private static SpawnPolicy withPeer(SpawnPolicy policy, int peerUid) {
        return new SpawnPolicy(
                policy.id(),
                policy.network(),
                policy.hosts(),
                policy.proxyPort(),
                policy.door(),
                OptionalInt.of(peerUid),
                policy.shadow());
    }

    /**
     * The uid of the person who runs {@code portcullis run}, taken as the gateway's uid unless the
     * host configuration names one: this process's uid, except that for root with {@code SUDO_UID}
     * set (a run under sudo) it is that uid. Only root's {@code SUDO_UID} counts: root may name any
     * gateway uid in a host file anyway, while any other user could set the variable to another
     * user's uid and reach that user's services. Pure.
     */
    public static int invokingUid(int processUid, Optional<String> sudoUid) {
        if (processUid != 0 || sudoUid.isEmpty() || !sudoUid.get().matches("[0-9]{1,10}")) {
            return processUid;
        }
        long uid = Long.parseLong(sudoUid.get());
        return uid <= Integer.MAX_VALUE ? (int) uid : processUid;
    }

    /**
     * The host configuration's defaults for a run by {@code invokingUid}: that uid as the gateway's,
     * the rest as always. Root is never taken as the gateway's user: a root socket stays root's, which
     * only a container's published port may be (R32), and a check over every root process would fail
     * on the first one it may not read (a process of another user namespace refuses even root).
     */
    public static HostConfig hostDefaults(int invokingUid) {
        int gateway = invokingUid == 0 ? HostConfig.DEFAULTS.owner().gatewayUid() : invokingUid;
        return HostConfig.DEFAULTS.withOwner(HostConfig.DEFAULTS.owner().withGateway(gateway, 0));
    }

    /** The uid of this process, which the sandbox maps to itself. */
    public static int currentUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** One {@code HOST:PORT[/http]}. */
    static SpawnPolicy.Entry entry(String allow) {
        boolean http = allow.endsWith(HTTP_SUFFIX);
        Target target = Target.parse(http ? allow.substring(0, allow.length() - HTTP_SUFFIX.length()) : allow);
        SpawnPolicy.Scheme scheme = http
                ? SpawnPolicy.Scheme.HTTP
                : target.port() == 443 ? SpawnPolicy.Scheme.HTTPS : SpawnPolicy.Scheme.TCP;
        return new SpawnPolicy.Entry(target, scheme, OwnerQuery.Source.OWNER);
    }
}
