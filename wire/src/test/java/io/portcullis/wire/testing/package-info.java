/** The entry's test helpers that other modules' tests share. */
package io.portcullis.wire.testing;
