/** Pure decisions: targets, address classes, the deny list, listed entries, verdicts and codes. */
@NullMarked
package io.portcullis.relay.policy;

import org.jspecify.annotations.NullMarked;
