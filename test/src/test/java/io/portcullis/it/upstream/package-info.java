/** The upstream proxy (SPEC R25) end to end: a real tinyproxy, and scripted answers it cannot give. */
package io.portcullis.it.upstream;
