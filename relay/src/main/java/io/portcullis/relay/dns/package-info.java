/**
 * The namespace's own DNS (SPEC R24): the relay answers A and AAAA on the spawn's UDP 127.0.0.1:53
 * itself, from its policy, so no query leaves the host that the policy would not let through.
 */
@NullMarked
package io.portcullis.relay.dns;

import org.jspecify.annotations.NullMarked;
