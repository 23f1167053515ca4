/** The end-to-end test world as a JUnit extension: namespaces, DNS, origins, and the dial guard. */
package io.portcullis.it.world;
