/** The policy as values: the host configuration, the spawn's policy, targets, requests, blocks and the deny list, verdicts and deny codes. */
@NullMarked
package io.portcullis.relay.policy;

import org.jspecify.annotations.NullMarked;
