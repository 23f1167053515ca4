/** The entry-relay wire format: one definition, shared by both modules (SPEC R4). */
package io.portcullis.entry.wire;
