/** The in-namespace entry: loopback listeners whose connections cross the spawn's unix socket. */
package io.portcullis.entry;
