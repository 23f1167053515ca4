/** The policy's judge (the pure rules, DNS once, this host's own addresses and the owner check), built one way for the relay and the command line, and bound to one spawn and generation. */
@NullMarked
package io.portcullis.relay.judge;

import org.jspecify.annotations.NullMarked;
