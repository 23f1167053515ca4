package io.portcullis.relay.dns;

import io.netty.handler.codec.dns.DnsRecordType;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * How one question to the namespace's DNS is answered, before any lookup (SPEC R24). Pure.
 *
 * <ul>
 *   <li>a named entry's host (a listed {@code tcp} entry that is not loopback): its synthetic
 *       address for A, no data for any other type;
 *   <li>a listed {@code https} or {@code http} entry's host, and in {@code internet} mode any
 *       name: what the relay resolves and would accept for a connection to it, {@link Judge};
 *       no data for types other than A and AAAA;
 *   <li>anything else, and everything in {@code none} mode: {@code REFUSED}.
 * </ul>
 */
sealed interface Answer {

    /** The name's synthetic address (A). */
    record Synthetic(String name, InetAddress address) implements Answer {}

    /** No record of that type, the name being known (NOERROR, no answer). */
    record NoData(String name) implements Answer {}

    /** The addresses a connection to {@code request} would be allowed to, of the question's family. */
    record Judge(String name, Request request, boolean ipv6) implements Answer {}

    /** {@code REFUSED}, for {@code code}. */
    record Refuse(String name, DenyCode code) implements Answer {
        public Refuse {
            Objects.requireNonNull(code, "code");
        }
    }

    /** The name as the decision line shows it. */
    String name();

    /** The answer to a question for {@code name} (as the query spelled it) of {@code type}. */
    static Answer to(SpawnPolicy policy, String name, DnsRecordType type) {
        String bare = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (policy.network() == SpawnPolicy.Network.NONE) {
            return new Refuse(bare, DenyCode.MODE_NONE);
        }
        Optional<Target> parsed = host(bare);
        if (parsed.isEmpty()) {
            return new Refuse(bare, DenyCode.BAD_REQUEST);
        }
        String host = parsed.get().host();
        boolean address = type.equals(DnsRecordType.A) || type.equals(DnsRecordType.AAAA);
        Optional<InetAddress> synthetic = policy.syntheticAddress(host);
        if (synthetic.isPresent()) {
            return type.equals(DnsRecordType.A) ? new Synthetic(host, synthetic.get()) : new NoData(host);
        }
        boolean ipv6 = type.equals(DnsRecordType.AAAA);
        for (SpawnPolicy.Entry entry : policy.hosts()) {
            if (entry.target().host().equals(host) && entry.scheme() != SpawnPolicy.Scheme.TCP) {
                if (!address) {
                    return new NoData(host);
                }
                Request request = entry.scheme() == SpawnPolicy.Scheme.HTTP
                        ? Request.http(entry.target().toString())
                        : Request.connect(entry.target().toString());
                return new Judge(host, request, ipv6);
            }
        }
        if (policy.network() == SpawnPolicy.Network.INTERNET) {
            return address ? new Judge(host, Request.connect(host + ":443"), ipv6) : new NoData(host);
        }
        return new Refuse(host, DenyCode.NOT_LISTED);
    }

    /** The name in the policy's canonical form; empty when it is not a host name (an address, a port). */
    private static Optional<Target> host(String name) {
        if (name.isEmpty() || name.indexOf(':') >= 0 || name.indexOf('[') >= 0) {
            return Optional.empty();
        }
        try {
            Target target = Target.parse(name + ":1");
            return target.isName() ? Optional.of(target) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
