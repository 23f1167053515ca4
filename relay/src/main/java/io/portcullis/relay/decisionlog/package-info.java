/** The decision log: each decision record as one JSON line, a spawn's flood of refusals folded, to a file or standard error. */
@NullMarked
package io.portcullis.relay.decisionlog;

import org.jspecify.annotations.NullMarked;
