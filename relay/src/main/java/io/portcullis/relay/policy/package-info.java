/** Pure decisions: targets, address classes, the deny list, listed entries, verdicts and codes. */
package io.portcullis.relay.policy;
