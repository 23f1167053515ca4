/** The cost of spawns in one relay: time to open one, memory per open spawn and per idle tunnel. */
package io.portcullis.bench.daemon;
