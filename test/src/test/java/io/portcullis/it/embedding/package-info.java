/** The embedding page (docs/embedding.md) held to what it shows: its coordinates, its code and its JVM options. */
package io.portcullis.it.embedding;
