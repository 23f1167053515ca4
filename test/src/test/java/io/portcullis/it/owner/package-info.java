/** The owner check end to end: the relay's forwards and {@code portcullis owner} against real listeners and containers. */
package io.portcullis.it.owner;
