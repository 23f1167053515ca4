package io.portcullis.relay.proxy;

import io.portcullis.relay.http.Framing;
import io.portcullis.relay.http.Outgoing;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.policy.AbsoluteUri;
import io.portcullis.relay.policy.Target;
import java.util.Optional;

/**
 * Reads a plain HTTP request for a listed {@code http} entry (SPEC R10): the absolute-form
 * target, the one {@code Host} field naming the same {@code host:port}, and unambiguous framing.
 * Pure: the answer is what to judge and what to send.
 *
 * @param uri the request target, read
 * @param outgoing the request to send once the authority is allowed
 */
record PlainHttp(AbsoluteUri uri, Outgoing outgoing) {

    /**
     * @throws IllegalArgumentException when the request is malformed or ambiguous ({@code 400})
     */
    static PlainHttp of(RequestHead head) {
        AbsoluteUri uri = AbsoluteUri.parse(head.target());
        Optional<String> host = Outgoing.host(head);
        if (host.isPresent() && !Target.parse(AbsoluteUri.authority(host.get())).equals(uri.target())) {
            throw new IllegalArgumentException("Host: another host:port than the target's (expected: the same)");
        }
        Framing framing = Framing.of(head);
        return new PlainHttp(uri, Outgoing.of(head, framing, uri.origin(), uri.hostField(), name -> false));
    }
}
